package plotting

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CondPanel is one panel of ConditionalDensities: a learned 1-D density
// (X, Density) at the point named Title, beside a histogram of Near, the
// next states observed near that point (nil: none).
type CondPanel struct {
	Title      string
	X, Density []float64
	Near       []float64
}

// condCols is the number of panels per row of ConditionalDensities.
const condCols = 3

// ConditionalDensities draws the panels (rows of condCols) into outPath:
// smrl estimate --plot of a kernel family bound to data
// (FigEstimationDensities). xLabel names the variable, learned and near
// the legend's two entries (near is left out when no panel has Near).
func ConditionalDensities(outPath, title, xLabel, learned, near string, panels []CondPanel, opt Options) error {
	opt, err := opt.normalize()
	if err != nil {
		return err
	}
	if len(panels) == 0 {
		return fmt.Errorf("no panels to draw")
	}
	rows := (len(panels) + condCols - 1) / condCols
	plots := make([][]*plot.Plot, rows)
	hasNear := false
	line := AgentStyle("sm").Color
	for r := range rows {
		plots[r] = make([]*plot.Plot, condCols)
		for c := range condCols {
			k := r*condCols + c
			if k >= len(panels) {
				plots[r][c] = nil
				continue
			}
			p, err := condPanel(panels[k], line)
			if err != nil {
				return err
			}
			if r == rows-1 {
				p.X.Label.Text = xLabel
			}
			if c == 0 {
				p.Y.Label.Text = "density"
			}
			hasNear = hasNear || len(panels[k].Near) > 0
			plots[r][c] = p
		}
	}
	items := []legendItem{{Label: learned, Thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: draw.LineStyle{Color: line, Width: vg.Points(2)}}}}}
	if hasNear {
		items = append(items, legendItem{Label: near, Thumbs: []plot.Thumbnailer{&plotter.Polygon{Color: withAlpha(rewardGrey, fillAlpha)}}})
	}
	return writeFigure(outPath, opt, func(cv draw.Canvas) error {
		gc := titledPanels(cv, title, items)
		canvases := plot.Align(plots, draw.Tiles{Rows: rows, Cols: condCols, PadX: vg.Points(10), PadY: vg.Points(8),
			PadLeft: vg.Points(2), PadRight: vg.Points(6)}, gc)
		for r := range rows {
			for c := range condCols {
				if plots[r][c] != nil {
					plots[r][c].Draw(canvases[r][c])
				}
			}
		}
		return nil
	})
}

// condPanel is one panel: the histogram of Near (as a density), then the
// learned curve on top.
func condPanel(cp CondPanel, c color.Color) (*plot.Plot, error) {
	p := panelPlot(cp.Title)
	top := 0.0
	if len(cp.Near) > 0 {
		lo, hi := cp.X[0], cp.X[len(cp.X)-1]
		bins := max(8, min(40, int(math.Sqrt(float64(len(cp.Near)))*2)))
		width := (hi - lo) / float64(bins)
		counts := make([]float64, bins)
		for _, x := range cp.Near {
			if b := int((x - lo) / width); b >= 0 && b < bins {
				counts[b]++
			}
		}
		for b, n := range counts {
			h := n / (float64(len(cp.Near)) * width)
			top = math.Max(top, h)
			x0 := lo + float64(b)*width
			poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x0 + width, Y: 0}, {X: x0 + width, Y: h}, {X: x0, Y: h}})
			if err != nil {
				return nil, err
			}
			poly.Color = withAlpha(rewardGrey, fillAlpha)
			poly.LineStyle.Width = 0
			addLean(p, poly)
		}
	}
	for _, y := range cp.Density {
		if !isFinite(y) {
			return nil, fmt.Errorf("panel %s: the learned density is not finite", cp.Title)
		}
		top = math.Max(top, y)
	}
	l, err := plotter.NewLine(xyPoints(cp.X, cp.Density))
	if err != nil {
		return nil, err
	}
	l.Color, l.Width = c, vg.Points(2)
	addLean(p, l)
	p.X.Min, p.X.Max = cp.X[0], cp.X[len(cp.X)-1]
	p.Y.Min, p.Y.Max = 0, 1.05*math.Max(top, 1e-12)
	return p, nil
}
