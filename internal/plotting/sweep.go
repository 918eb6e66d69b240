package plotting

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"github.com/smrl-dev/smrl/internal/errs"
)

// FigEstimationSweep names the figure of smrl estimate --sweep-n in the
// registry; its file is the one the user names.
const FigEstimationSweep = "estimation_sweep"

func init() {
	register(Figure{
		Name: FigEstimationSweep, Order: 300, Source: FromEstimationSweep, Columns: "method,n,repeat,frobenius_error", Places: InEstimate,
		Doc: DocLine{Figure: "`smrl estimate --sweep-n`: `FILE.png`",
			When:  "an estimation sweep (unless `--no-plots`); `smrl plot --sweep FILE.csv` redraws it",
			Shows: "Frobenius error of Ŵ against n per method on log–log axes: the mean over repeats with its normal 95% band and a dashed c/√n guide"},
	})
}

// SweepFigure draws the estimation-error sweep in csvPath (header
// method,n,repeat,frobenius_error) as error against n on log–log axes and
// writes it to outPath (its directory is created if missing). Per method it
// draws the mean over repeats with a band of mean ± 1.96·sd/√R, the normal
// 95% interval of the mean over the R repeats at that n, whose lower edge is
// raised to the smallest observed error where it would not be positive;
// and a dashed c/√n guide line through the first point (smallest n) of the
// first method in the file.
//
// The output format is opt.Format; an outPath extension that disagrees with
// it is an error, and an outPath without extension gets one.
func SweepFigure(csvPath, outPath string, opt Options) error {
	opt, err := opt.normalize()
	if err != nil {
		return err
	}
	if outPath, err = SweepFigurePath(outPath, opt.Format); err != nil {
		return err
	}
	d, err := readSweep(csvPath)
	if err != nil {
		return err
	}
	return writeFigure(outPath, opt, func(c draw.Canvas) error {
		return safeDraw(func() error { return sweepFigure(c, d) })
	})
}

// SweepFigurePath is the path SweepFigure writes for outPath in format
// ("" is png): outPath, with the format's extension added when it has
// none; an extension that disagrees with the format, or an outPath that
// names a directory, is an error.
func SweepFigurePath(outPath, format string) (string, error) {
	if format == "" {
		format = "png"
	}
	if strings.HasSuffix(outPath, "/") || strings.HasSuffix(outPath, string(filepath.Separator)) {
		return "", errs.Invalid(fmt.Errorf("sweep figure %s names a directory: give the figure's file name", outPath))
	}
	if fi, err := os.Stat(outPath); err == nil && fi.IsDir() {
		return "", errs.Invalid(fmt.Errorf("sweep figure %s is a directory: give the figure's file name", outPath))
	}
	if ext := strings.TrimPrefix(filepath.Ext(outPath), "."); ext == "" {
		return outPath + "." + format, nil
	} else if !strings.EqualFold(ext, format) {
		return "", errs.Invalid(fmt.Errorf("sweep figure %s: extension %q does not match format %q", outPath, ext, format))
	}
	return outPath, nil
}

// sweepFigure draws the sweep into c.
func sweepFigure(c draw.Canvas, d *sweepData) error {
	var ss []series
	maxR := 0
	for i, m := range d.Methods {
		s := series{Name: m, Style: AgentStyle(m)}
		if s.Style.Dashes == nil {
			// Methods whose errors coincide (sm and mle on a Gaussian) stay
			// apart by their dashes as well as their colours.
			s.Style.Dashes = comboDashes[i%len(comboDashes)]
		}
		for _, pt := range d.Points[m] {
			if !(pt.Mean > 0) {
				return errs.Invalid(fmt.Errorf("method %s at n = %g: mean error %g cannot be drawn on a log axis", m, pt.N, pt.Mean))
			}
			lo, hi := pt.band()
			s.X = append(s.X, pt.N)
			s.Y = append(s.Y, pt.Mean)
			s.Lo = append(s.Lo, lo)
			s.Hi = append(s.Hi, hi)
			maxR = max(maxR, pt.Repeats)
		}
		ss = append(ss, s)
	}
	if len(ss) == 0 {
		return errNoData
	}
	reps := fmt.Sprintf("%d repeats", maxR)
	if maxR == 1 {
		reps = "1 repeat"
	}
	p := newPlot(fmt.Sprintf("Estimation error vs sample size (mean ± 1.96·sd/√R, %s)", reps),
		"number of samples n (log scale)", "Frobenius error ‖Ŵ − W₀‖ (log scale)")
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}

	// Guide c/√n through the first method's first point.
	first := ss[0]
	cst := first.Y[0] * math.Sqrt(first.X[0])
	nmin, nmax := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, x := range s.X {
			nmin, nmax = math.Min(nmin, x), math.Max(nmax, x)
		}
	}
	items, err := addSeries(p, ss)
	if err != nil {
		return err
	}
	if nmax > nmin {
		gl, err := guideLine(nmin, nmax, func(n float64) float64 { return cst / math.Sqrt(n) })
		if err != nil {
			return err
		}
		addLean(p, gl)
		items = append(items, legendItem{Label: fmt.Sprintf("c/√n (c = %.3g)", cst), Thumbs: []plot.Thumbnailer{gl}})
	}
	if hasBand(ss) {
		items = append(items, legendItem{Label: "shaded: 95% CI of mean"})
	}
	fixLogRange(p)
	drawWithLegend(c, p, items)
	return nil
}
