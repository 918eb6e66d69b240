package plotting

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/vg/draw"

	"github.com/smrl-dev/smrl/internal/metrics"
)

// LiveReturn draws the learning curves of a run in progress (smrl watch
// --png): the mean return per episode of every agent over the seeds that
// have finished the episode, from metrics.jsonl (metrics.Curves), into
// path. title names the run; episodes fixes the x axis to the run's
// episodes, so the figure fills in as the run goes on. Points are the
// means over different numbers of seeds while seeds are in flight, so no
// band is drawn.
func LiveReturn(path, title string, curves []metrics.Curve, episodes int, opt Options) error {
	opt, err := opt.normalize()
	if err != nil {
		return err
	}
	var ss []series
	for _, c := range curves {
		s := series{Name: c.Agent, Style: AgentStyle(c.Agent)}
		for i, m := range c.Mean {
			if c.N[i] > 0 {
				s.X = append(s.X, float64(i+1))
				s.Y = append(s.Y, m)
			}
		}
		if len(s.X) > 0 {
			ss = append(ss, s)
		}
	}
	return writeFigure(path, opt, func(c draw.Canvas) error {
		p := newPlot(fmt.Sprintf("%s: return per episode so far (mean over the seeds done)", title), "episode", "return")
		p.X.Min, p.X.Max = 1, math.Max(float64(episodes), 2)
		return bandFigure(c, p, ss)
	})
}
