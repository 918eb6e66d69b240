package estimator

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
)

// TestKernelBimodalFigure draws docs/kernel-bimodal-density.png: the
// learned and the true conditional densities of the bimodal law at three
// states, from a fit at the bandwidth and λ the full-size cross-validation
// chose (σ = 0.5515, λ = 1; TestKernelBimodalLong). SMRL_FIGURE=PATH runs
// it and writes the PNG to PATH.
func TestKernelBimodalFigure(t *testing.T) {
	path := os.Getenv("SMRL_FIGURE")
	if path == "" {
		t.Skip("SMRL_FIGURE=PATH draws the bimodal density figure")
	}
	const dphi = 9
	r := runBimodal(t, 5000, 1000, 40, dphi, KernelOptions{Bandwidths: []float64{0.5515}, Lambdas: []float64{1}, Seed: 1})
	p := plot.New()
	p.Title.Text = "kernel family (m = 40, n = 5000) vs true conditional density"
	p.X.Label.Text = "s'"
	p.Y.Label.Text = "p(s' | s)"
	cols := []color.Color{color.RGBA{R: 200, A: 255}, color.RGBA{G: 140, A: 255}, color.RGBA{B: 200, A: 255}}
	phi := make([]float64, dphi)
	psi := make([]float64, r.fit.Fam.M)
	eta := make([]float64, r.fit.Fam.M)
	for i, s := range []float64{-1.5, 0, 1.5} {
		bimodalFeatures(s, phi)
		for k := range eta {
			eta[k] = expfam.Dot(r.fit.W[k*dphi:(k+1)*dphi], phi)
		}
		logZ, err := r.fit.Fam.LogPartition(eta)
		if err != nil {
			t.Fatal(err)
		}
		var learned, truth plotter.XYs
		for x := -3.5; x <= 3.5; x += 0.02 {
			r.fit.Fam.Psi([]float64{x}, psi)
			l := r.fit.Fam.LogBase([]float64{x}) + expfam.Dot(psi, eta) - logZ
			learned = append(learned, plotter.XY{X: x, Y: math.Exp(l)})
			truth = append(truth, plotter.XY{X: x, Y: math.Exp(bimodal{}.logPdf(s, x))})
		}
		ll, _ := plotter.NewLine(learned)
		ll.Color, ll.Width = cols[i], vg.Points(2)
		lt, _ := plotter.NewLine(truth)
		lt.Color, lt.Width, lt.Dashes = cols[i], vg.Points(1.2), []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(ll, lt)
		p.Legend.Add(fmt.Sprintf("s = %g learned", s), ll)
		p.Legend.Add(fmt.Sprintf("s = %g true", s), lt)
	}
	p.Legend.Top = true
	p.Legend.YPosition = vgdraw.PosTop
	if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
		t.Fatal(err)
	}
}
