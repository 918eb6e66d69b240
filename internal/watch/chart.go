package watch

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/smrl-dev/smrl/internal/metrics"
)

// marks are the agents' glyphs in the text chart, in the agents' order.
var marks = []byte("*o+x#@%&")

// Draw writes the snapshot as text: a status line, then per results
// directory a chart of the mean return per episode of every agent (over
// the seeds that finished the episode) on a width × height grid of
// characters, and a legend with each agent's last mean.
func Draw(w io.Writer, s *Snapshot, width, height int) error {
	if width <= 0 {
		width = 64
	}
	if height <= 0 {
		height = 12
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %d/%d episodes", s.Dir, s.State, s.Done, s.Total)
	if s.Elapsed > 0 {
		fmt.Fprintf(&b, ", elapsed %s", s.Elapsed.Round(time.Second))
	}
	if s.HasETA {
		fmt.Fprintf(&b, ", ETA %s", s.ETA.Round(time.Second))
	}
	b.WriteString("\n")
	for _, r := range s.Runs {
		b.WriteString("\n")
		if r.Name != "" {
			b.WriteString(r.Name + "\n")
		}
		chart(&b, r, width, height)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// chart draws one run's curves into b.
func chart(b *strings.Builder, r Run, width, height int) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range r.Curves {
		for _, m := range c.Mean {
			lo, hi = math.Min(lo, m), math.Max(hi, m)
		}
	}
	if math.IsInf(lo, 0) {
		b.WriteString("no episode finished yet\n")
		return
	}
	if hi == lo {
		lo, hi = lo-1, hi+1
	}
	grid := make([][]byte, height)
	for i := range grid {
		grid[i] = []byte(strings.Repeat(" ", width))
	}
	episodes := max(r.Episodes, 1)
	// The later agents are drawn first, so that where curves meet the
	// earlier agent's mark shows (the learners come before the oracle in
	// the usual configs).
	for k := len(r.Curves) - 1; k >= 0; k-- {
		c := r.Curves[k]
		mark := marks[k%len(marks)]
		for x := range width {
			e := 1 + int(math.Round(float64(x)*float64(episodes-1)/float64(max(width-1, 1))))
			if e > len(c.Mean) || c.N[e-1] == 0 {
				continue
			}
			y := int(math.Round((hi - c.Mean[e-1]) / (hi - lo) * float64(height-1)))
			grid[y][x] = mark
		}
	}
	top, bottom := num(hi), num(lo)
	pad := max(len(top), len(bottom))
	for i, row := range grid {
		label := ""
		switch i {
		case 0:
			label = top
		case height - 1:
			label = bottom
		}
		fmt.Fprintf(b, "%*s |%s\n", pad, label, strings.TrimRight(string(row), " "))
	}
	fmt.Fprintf(b, "%*s +%s\n", pad, "", strings.Repeat("-", width))
	last := strconv.Itoa(episodes)
	fmt.Fprintf(b, "%*s  1%s%s  episode\n", pad, "", strings.Repeat(" ", max(width-1-len(last), 1)), last)
	b.WriteString("mean return per episode over the seeds that finished it\n")
	for k, c := range r.Curves {
		fmt.Fprintf(b, "  %c %-10s %s\n", marks[k%len(marks)], c.Agent, lastPoint(c))
	}
}

// lastPoint describes a curve's last episode.
func lastPoint(c metrics.Curve) string {
	n := len(c.Mean)
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("episode %d: %s (%d seeds)", n, num(c.Mean[n-1]), c.N[n-1])
}

// num formats a value with 4 significant digits.
func num(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
