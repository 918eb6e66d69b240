package plotting

import (
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// This file is the registry of figures. Each figure is one file that
// registers itself in its init (register): its name, what it draws from,
// where it appears, its caption and its row of the figure table in
// docs/outputs.md. RunFigures, GridFigures, AggregateFigures, the reports'
// captions, FigureNames and GridFigureNames iterate the registry instead of
// naming figures, so adding a figure is one file.

// Source is the data a figure is drawn from.
type Source int

// The sources of figures.
const (
	FromSummary         Source = iota + 1 // a results directory's summary.csv
	FromEpisodes                          // columns of a results directory's episodes.csv
	FromModel                             // the run's model (DensitySource, MarginalSource) and the agents' final W in episodes.csv
	FromAggregate                         // aggregate.csv and profile.csv of a results or sweep directory
	FromSweepTable                        // a sweep's sweep.csv (GridData)
	FromEstimationSweep                   // the CSV of smrl estimate --sweep-n
	FromEstimate                          // the fits of smrl estimate --plot
)

// String names the source for the figure table of docs/outputs.md.
func (s Source) String() string {
	switch s {
	case FromSummary:
		return "summary.csv"
	case FromEpisodes:
		return "episodes.csv"
	case FromModel:
		return "the run's model"
	case FromAggregate:
		return "the aggregate files"
	case FromSweepTable:
		return "sweep.csv"
	case FromEstimationSweep:
		return "the estimation sweep's CSV"
	case FromEstimate:
		return "the fits of smrl estimate"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// Place is a set of places a figure appears in.
type Place uint8

// The places of figures.
const (
	InRun      Place = 1 << iota // a run's plots/ and report.md/report.html (also smrl plot --in)
	InSweep                      // a sweep's plots/ and report.md
	InEstimate                   // a file of smrl estimate (and smrl plot --sweep)
)

// DocLine is a figure's row of the figure table in docs/outputs.md.
type DocLine struct {
	// Figure is the first cell; empty: the figure's file name in
	// backquotes (NAME_KEY for a figure per swept key).
	Figure string
	// When says when the figure is drawn, Shows what it shows.
	When, Shows string
}

// Figure is one registered figure.
type Figure struct {
	// Name is the file name without extension; for a figure per swept key
	// (PerKey), the prefix of NAME_KEY; for a figure of smrl estimate,
	// whose file the user names, its name in the registry alone.
	Name string
	// Order sorts the figures: the order of the written files and of the
	// reports' figure sections, ascending.
	Order int
	// Source is what the figure is drawn from, Columns which part of it.
	Source  Source
	Columns string
	// Places is where the figure appears.
	Places Place
	// PerKey marks a sweep figure drawn once per swept key.
	PerKey bool
	// Smoothed marks a per-episode figure drawn with the moving window
	// Options.Smooth, which its caption then names.
	Smoothed bool
	// Caption is the figure's caption in the reports ("" for a figure
	// outside them).
	Caption string
	// Doc is its row of the figure table of docs/outputs.md.
	Doc DocLine

	// run returns the drawing of a run figure for a results directory's
	// data, nil when the data do not call for it.
	run func(in *runInputs) *drawing
	// sweep returns the drawing of a sweep figure (of Source
	// FromSweepTable or FromAggregate) against axis in.axis (for a PerKey
	// figure; -1 otherwise), nil when the sweep does not call for it.
	sweep func(in *sweepInputs) *drawing
}

// drawing is one figure to write: its drawing function, and its size when
// it is not the options' (width 0: the options' size).
type drawing struct {
	build func(c draw.Canvas) error
	// big: drawn at the densities' size unless the caller chose a size.
	big  bool
	w, h vg.Length
}

// runInputs are the validated data of a results directory from which
// RunFigures draws.
type runInputs struct {
	dir    string // the results directory, for a figure that reads a file of its own
	sum    *summaryData
	finals map[string]finalW
	shares *actionShares // nil: no action counts
	spans  seedSpans
	agg    *aggregateData // nil: no aggregate files
	dens   DensitySource  // nil: no 1-D model
	opt    Options
}

// sweepInputs are the data of a sweep from which its figures are drawn.
type sweepInputs struct {
	grid *GridData
	axis int            // the swept key of a PerKey figure; -1 otherwise
	agg  *aggregateData // of AggregateFigures
	opt  Options
}

// registry holds the registered figures in Order.
var registry []Figure

// FigureNames lists every figure RunFigures may write, in order: the files
// a fresh run may remove from its own plots directory. register keeps it
// current.
var FigureNames []string

// register adds figures to the registry. A name or order that is already
// registered, or a figure without a way to be drawn in one of its places,
// is a bug: it panics at init.
func register(figs ...Figure) {
	for _, f := range figs {
		for _, g := range registry {
			if g.Name == f.Name || g.Order == f.Order {
				panic(fmt.Sprintf("plotting: figure %q registered twice (name or order %d of %q)", f.Name, f.Order, g.Name))
			}
		}
		if f.Places&InRun != 0 && f.run == nil || f.Places&InSweep != 0 && f.sweep == nil {
			panic(fmt.Sprintf("plotting: figure %q appears where it has no drawing", f.Name))
		}
		registry = append(registry, f)
	}
	slices.SortFunc(registry, func(a, b Figure) int { return a.Order - b.Order })
	FigureNames = FigureNames[:0]
	for _, f := range registry {
		if f.Places&InRun != 0 {
			FigureNames = append(FigureNames, f.Name)
		}
	}
}

// Figures returns the registered figures in order.
func Figures() []Figure { return slices.Clone(registry) }

// runCaption returns the caption of the run figure name ("" for none),
// with the moving window of the per-episode figures when smooth > 1.
func runCaption(name string, smooth int) string {
	for _, f := range registry {
		if f.Name == name && f.Places&InRun != 0 {
			c := f.Caption
			if smooth > 1 && f.Smoothed {
				c += fmt.Sprintf(" Smoothed: the mean and both ends of the band are trailing moving averages over %d episodes.", smooth)
			}
			return c
		}
	}
	return ""
}

// sweepCaption returns the caption of the sweep figure name: a figure's
// own name, or NAME_KEY for a figure per swept key; "" for none.
func sweepCaption(name string) string {
	for _, f := range registry {
		if f.Places&InSweep == 0 {
			continue
		}
		if name == f.Name || f.PerKey && strings.HasPrefix(name, f.Name+"_") {
			return f.Caption
		}
	}
	return ""
}

// sweepFigures returns the sweep figures of source in order: those per
// key first (each key in turn, in registry order within it), then the
// others.
func sweepFigures(source Source, in sweepInputs, keys int) []namedDrawing {
	var out []namedDrawing
	for k := range keys {
		for _, f := range registry {
			if f.Places&InSweep != 0 && f.Source == source && f.PerKey {
				in.axis = k
				if d := f.sweep(&in); d != nil {
					out = append(out, namedDrawing{f.Name + "_" + in.grid.Axes[k].Key, d})
				}
			}
		}
	}
	in.axis = -1
	for _, f := range registry {
		if f.Places&InSweep != 0 && f.Source == source && !f.PerKey {
			if d := f.sweep(&in); d != nil {
				out = append(out, namedDrawing{f.Name, d})
			}
		}
	}
	return out
}

// namedDrawing is a drawing with its file name (without extension).
type namedDrawing struct {
	name string
	*drawing
}
