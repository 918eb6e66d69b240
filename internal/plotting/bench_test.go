package plotting

import (
	"path/filepath"
	"testing"
)

// BenchmarkFigureDensities draws the densities figure (15 panels, three
// agents' estimates) as a PNG at its default 1200 × 800 px.
func BenchmarkFigureDensities(b *testing.B) {
	est := map[string][]float64{"sm": {0.7, 0.5}, "lds": {1.1, 0.3}, "mle": {0.75, 0.55}}
	out := filepath.Join(b.TempDir(), "densities.png")
	opt := Options{Width: densityWidth, Height: densityHeight}
	b.ReportAllocs()
	for b.Loop() {
		if err := DensityGrid(out, runDensitiesTitle, gaussSource{sigma: 0.6}, est, opt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFigureRunSet draws a run's figures (the fixture: three agents,
// three seeds, six episodes; with the densities) as PNG files.
func BenchmarkFigureRunSet(b *testing.B) {
	out := filepath.Join(b.TempDir(), "plots")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RunFigures(fixtureResults, out, gaussSource{sigma: 0.6}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFigureRunSetSVG is BenchmarkFigureRunSet in SVG.
func BenchmarkFigureRunSetSVG(b *testing.B) {
	out := filepath.Join(b.TempDir(), "plots")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RunFigures(fixtureResults, out, gaussSource{sigma: 0.6}, Options{Format: "svg"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReportHTML writes report.md and report.html of the fixture's
// run with its figures inlined (PNG, the densities among them).
func BenchmarkReportHTML(b *testing.B) {
	dir := b.TempDir()
	figs, err := RunFigures(fixtureResults, filepath.Join(dir, "plots"), gaussSource{sigma: 0.6}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := ReportTo(fixtureResults, dir, figs, ReportInfo{}); err != nil {
			b.Fatal(err)
		}
	}
}
