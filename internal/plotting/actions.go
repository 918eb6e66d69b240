package plotting

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FigActions is the figure of the action coverage: per agent, the
// fraction of steps that played each discrete action, per episode.
const FigActions = "actions"

func init() {
	register(Figure{
		Name: FigActions, Order: 70, Source: FromEpisodes, Columns: "action_i and steps", Places: InRun,
		Caption: "Action coverage: per agent, the fraction of each episode's steps that played each action of env.actions (columns action_i of episodes.csv), mean over seeds. An action a learning agent never plays leaves the part of Ŵ only it reaches unidentified (see the warnings).",
		Doc: DocLine{When: "a discrete action set (`env.actions`) of at most 12 actions",
			Shows: "one panel per agent: the fraction of each episode's steps that played each action, mean over seeds, on [0, 1] (columns `action_i` of `episodes.csv`)"},
		run: func(in *runInputs) *drawing {
			if in.shares == nil || in.shares.actions > maxFigureActions {
				return nil
			}
			return &drawing{build: func(c draw.Canvas) error { return actionsFigure(c, in.shares, in.opt) }}
		},
	})
}

// maxFigureActions bounds the actions the figure draws a line for: with
// more, the lines and their legend cover the panel (a set of hundreds of
// actions); their counts stay in episodes.csv's action_i columns.
const maxFigureActions = 12

// actionShares is, per agent (in file order), the mean over seeds of the
// fraction of each episode's steps that played each action.
type actionShares struct {
	agents   []string
	actions  int
	episodes map[string][]float64   // ascending
	share    map[string][][]float64 // [action][episode index]
}

// readActionShares reads the action_i columns of episodes.csv at path,
// which readEpisodes has validated (actionCells): nil when it has none (a
// box of actions, or results of an earlier version). Rows with empty
// counts (trials of an earlier version in a resumed run) are left out.
func readActionShares(path string) (*actionShares, error) {
	t, err := readTable(path, episodeColumns)
	if err != nil {
		return nil, err
	}
	cols := actionColumns(t)
	if len(cols) == 0 || !t.has("steps") {
		return nil, nil
	}
	type key struct {
		agent string
		ep    int
	}
	sum := map[key][]float64{}
	cnt := map[key]int{}
	d := &actionShares{actions: len(cols), episodes: map[string][]float64{}, share: map[string][][]float64{}}
	for i := range t.rows {
		a, err := t.agent(i, "agent")
		if err != nil {
			return nil, err
		}
		ep, err := t.integer(i, "episode", 1, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		steps, err := t.integer(i, "steps", 1, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		if t.rows[i][t.col[cols[0]]] == "" {
			continue // a trial of an earlier version, in a resumed run (actionCells)
		}
		if !slices.Contains(d.agents, a) {
			d.agents = append(d.agents, a)
		}
		k := key{a, ep}
		if sum[k] == nil {
			sum[k] = make([]float64, len(cols))
			d.episodes[a] = append(d.episodes[a], float64(ep))
		}
		for j, c := range cols {
			n, err := t.integer(i, c, 0, steps)
			if err != nil {
				return nil, err
			}
			sum[k][j] += float64(n) / float64(steps)
		}
		cnt[k]++
	}
	for _, a := range d.agents {
		slices.Sort(d.episodes[a])
		sh := make([][]float64, len(cols))
		for j := range sh {
			sh[j] = make([]float64, len(d.episodes[a]))
			for e, ep := range d.episodes[a] {
				k := key{a, int(ep)}
				sh[j][e] = sum[k][j] / float64(cnt[k])
			}
		}
		d.share[a] = sh
	}
	return d, nil
}

// actionName names action j of the run's actions (by index without them).
func actionName(actions [][]float64, j int) string {
	if j >= len(actions) {
		return fmt.Sprintf("action %d", j)
	}
	s := make([]string, len(actions[j]))
	for i, x := range actions[j] {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return "a = " + strings.Join(s, ", ")
}

// actionsFigure draws one panel per agent, in it one line per action: the
// fraction of the episode's steps that played it, mean over seeds, on
// [0, 1]. Actions differ in colour, marker and dash (the sweep figures'
// styles), the same in every panel.
func actionsFigure(c draw.Canvas, d *actionShares, opt Options) error {
	if d == nil || len(d.agents) == 0 {
		return errNoData
	}
	agents := d.agents // in the order of the config's agents, as every figure
	cols := min(len(agents), 3)
	rows := (len(agents) + cols - 1) / cols
	plots := make([][]*plot.Plot, rows)
	for r := range plots {
		plots[r] = make([]*plot.Plot, cols)
	}
	var items []legendItem
	for k, a := range agents {
		p := newPlot(a, "episode", "fraction of steps")
		var ss []series
		for j := range d.actions {
			st := Style{Color: comboColor(j, d.actions), Glyph: fallbackGlyphs[j%len(fallbackGlyphs)], Dashes: comboDashes[j%len(comboDashes)]}
			ss = append(ss, series{Name: actionName(opt.Actions, j), Style: st, X: d.episodes[a], Y: d.share[a][j]})
		}
		got, err := addSeries(p, ss)
		if err != nil {
			return err
		}
		if items == nil {
			items = got
		}
		p.Y.Min, p.Y.Max = 0, 1.02
		plots[k/cols][k%cols] = p
	}
	gc := titledPanels(c, "Action coverage: fraction of each episode's steps per action (mean over seeds)", items)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(10), PadY: vg.Points(6), PadLeft: vg.Points(2), PadRight: vg.Points(8), PadBottom: vg.Points(2)}
	canvases := plot.Align(plots, tiles, gc)
	for r := range plots {
		for col, p := range plots[r] {
			if p != nil {
				p.Draw(canvases[r][col])
			}
		}
	}
	return nil
}
