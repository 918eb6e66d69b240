package plotting

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// GridReport writes reportDir/report.md for a parameter sweep: the grid,
// a table with a row per point (its values, each agent's final
// cumulative regret and reward with 95% intervals, a link to the point's
// report), and every figure of figs. pointDirs are the points' results
// directories (for the links), in the order of the table's points.
func GridReport(d *GridData, reportDir string, figs, pointDirs []string) error {
	absReport, err := filepath.Abs(reportDir)
	if err != nil {
		return fmt.Errorf("resolving %s: %w", reportDir, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# smrl sweep: %s\n\n", mdEscape(d.Name))
	var axes []string
	for _, a := range d.Axes {
		axes = append(axes, fmt.Sprintf("`%s` ∈ {%s}", a.Key, strings.Join(a.Labels, ", ")))
	}
	fmt.Fprintf(&b, "Grid: %s; %d points. Generated from `sweep.csv`. Values are means over seeds with 95%% Student-t intervals in brackets%s.\n\n",
		strings.Join(axes, " × "), len(pointDirs), d.after(metricReward))

	hasRegret := d.hasRegret()
	b.WriteString("| ")
	for _, a := range d.Axes {
		b.WriteString(mdEscape(a.Key) + " | ")
	}
	var cols []string
	if hasRegret {
		for _, a := range d.agentsFor(metricRegret) {
			cols = append(cols, a+" regret")
		}
	}
	for _, a := range d.Agents {
		cols = append(cols, a+" reward")
	}
	for _, c := range cols {
		b.WriteString(mdEscape(c) + " | ")
	}
	b.WriteString("point |\n|")
	b.WriteString(strings.Repeat("---|", len(d.Axes)+len(cols)+1) + "\n")

	byPoint := map[string][]GridCell{}
	var order []string
	for _, c := range d.Cells {
		if _, ok := byPoint[c.Point]; !ok {
			order = append(order, c.Point)
		}
		byPoint[c.Point] = append(byPoint[c.Point], c)
	}
	for i, p := range order {
		cells := byPoint[p]
		b.WriteString("| ")
		for k, a := range d.Axes {
			b.WriteString(mdEscape(a.Labels[cells[0].Coords[k]]) + " | ")
		}
		agent := func(name string) GridCell {
			for _, c := range cells {
				if c.Agent == name {
					return c
				}
			}
			nan := GridStat{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
			return GridCell{CumReward: nan, CumRegret: nan}
		}
		if hasRegret {
			for _, a := range d.agentsFor(metricRegret) {
				s := agent(a).CumRegret
				b.WriteString(interval(s.Mean, s.Lo, s.Hi) + " | ")
			}
		}
		for _, a := range d.Agents {
			s := agent(a).CumReward
			b.WriteString(interval(s.Mean, s.Lo, s.Hi) + " | ")
		}
		link := p
		if i < len(pointDirs) {
			if rel, err := relLink(absReport, filepath.Join(pointDirs[i], ReportFile)); err == nil {
				link = fmt.Sprintf("[%s](%s)", mdEscape(p), rel)
			}
		}
		b.WriteString(link + " |\n")
	}
	if d.AggregateDir != "" {
		agg, err := readAggregate(d.AggregateDir)
		if err != nil {
			return err
		}
		sec, err := aggregateTables(d.AggregateDir, agg)
		if err != nil {
			return err
		}
		b.WriteString(sec.markdown("Over every point, resampling seeds within each point (stratified). "))
	}
	if err := writeFigures(&b, absReport, figs, sweepCaption); err != nil {
		return err
	}
	return writeReport(reportDir, &b)
}
