package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	agentpkg "github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/fsutil"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/outdir"
	"github.com/smrl-dev/smrl/internal/plotting"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/results"
	"gonum.org/v1/plot/vg"
)

// densities serves the model densities of a 1-D MDP to the figures.
type densities struct {
	mdp *env.MDP
}

func (d *densities) curve(m *expfam.Model, s, a float64) plotting.Density {
	f, err := m.TabulatedDensity([]float64{s}, []float64{a})
	if err != nil {
		return func(float64) float64 { return 0 }
	}
	x := make([]float64, 1)
	return func(v float64) float64 { x[0] = v; return f(x) }
}

func (d *densities) True(s, a float64) plotting.Density { return d.curve(d.mdp.True, s, a) }

func (d *densities) Estimated(agent string, w []float64, s, a float64) (plotting.Density, bool) {
	m, ok := learnedModel(agent, d.mdp.Model, d.mdp.True.Feat, w)
	if !ok {
		return nil, false
	}
	return d.curve(m, s, a), true
}

// learnedModel is the model of agent's class with parameter w on features
// feat; false for an agent that learns nothing (the oracle's W is W0), an
// agent without W or a W that does not fit.
func learnedModel(agent string, spec env.ModelSpec, feat expfam.Features, w []float64) (*expfam.Model, bool) {
	if !agentpkg.Learns(agent) || w == nil {
		return nil, false
	}
	dist, err := agentpkg.Family(agent, spec)
	if err != nil {
		return nil, false
	}
	m, err := expfam.NewModel(dist, feat, w)
	if err != nil {
		return nil, false
	}
	return m, true
}

func (d *densities) Reward(s float64) float64 { return d.mdp.Task.Reward([]float64{s}, nil) }

// Plot draws every figure of the results directory dir in the given
// format, with report.md.
//
// With outDir empty (or naming dir itself) it redraws in place, into
// dir/plots and dir/report.md;
// dir must then be smrl's own (outdir.Owned). Otherwise the figures and
// report.md go to outDir, which must be new, empty or smrl's own
// (outdir.Claim), and dir is only read. The directory written is locked
// against other smrl processes. dir must hold the config.yaml of its run,
// against which its CSV files are checked (a missing one is invalid
// input). The density figures need a 1-D state and action.
func Plot(dir, outDir, format string) ([]string, error) {
	return PlotWith(dir, outDir, FigureOptions{Format: format})
}

// FigureOptions choose how Plot draws: the format and, when not nil, in
// place of the run's plot.smooth and plot.seed_lines (its config.yaml),
// for the per-episode figures a moving window (plotting.Options.Smooth)
// and per-seed lines (plotting.Options.SeedLines).
type FigureOptions struct {
	Format    string
	Smooth    *int
	SeedLines *bool
}

// PlotWith is Plot with the figure options fo.
func PlotWith(dir, outDir string, fo FigureOptions) ([]string, error) {
	return plot(dir, outDir, fo, false)
}

// plot is PlotWith; checked says that checkFigureInputs has passed already
// (PlotSweep checks every point before it draws the first).
func plot(dir, outDir string, fo FigureOptions, checked bool) ([]string, error) {
	if outDir != "" && sameDir(dir, outDir) {
		outDir = "" // --out naming --in itself: a redraw in place
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, errs.Invalid(fmt.Errorf("results directory %s: not found", dir))
	} else if !fi.IsDir() {
		return nil, errs.Invalid(fmt.Errorf("%s is a file, not a results directory: --in takes the directory smrl run wrote (the one holding %s)", dir, results.EpisodesFile))
	}
	if outDir == "" && !outdir.Owned(dir) {
		return nil, errs.Invalid(fmt.Errorf("results directory %s was not made by smrl (it has no %s marker), so smrl will not write figures into it; draw them elsewhere with --out DIR", dir, outdir.MarkerFile))
	}
	// The inputs are checked before anything is created.
	if !checked {
		if err := checkFigureInputs(dir, fo.Format); err != nil {
			return nil, err
		}
	}
	target := outDir
	// undo removes what this call made when it fails after claiming
	// outDir: the directories it created (new/ of new/child too), or the
	// files it put into a directory that was empty.
	undo := func() {}
	if outDir == "" {
		target = dir
	} else {
		if err := notResultsDir(outDir); err != nil {
			return nil, err
		}
		undo = undoer(outDir)
		if err := outdir.Claim(outDir); err != nil {
			undo()
			return nil, fmt.Errorf("--out: %w", err)
		}
	}
	release, err := outdir.Lock(target)
	if err != nil {
		undo()
		return nil, err
	}
	if err := outdir.CheckNoLinks(target, plotsDir); err != nil {
		release()
		undo()
		return nil, err
	}
	removeStaleTemps(target)
	figs, err := figures(dir, outDir, fo)
	release()
	if err != nil {
		undo()
	}
	return figs, err
}

// undoer returns the function that removes what a command made of the
// output directory out and its missing parents: the topmost directory it
// creates, or, when out exists and is empty, every entry it put there.
// Anything that was there before is kept.
func undoer(out string) func() {
	top := ""
	for p := filepath.Clean(out); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			break
		}
		top = p
		if filepath.Dir(p) == p {
			break
		}
	}
	if top != "" {
		return func() { os.RemoveAll(top) }
	}
	if ents, err := os.ReadDir(out); err != nil || len(ents) > 0 {
		return func() {}
	}
	return func() {
		ents, _ := os.ReadDir(out)
		for _, e := range ents {
			os.RemoveAll(filepath.Join(out, e.Name()))
		}
	}
}

// Figures redraws every figure of the results directory dir into
// dir/plots and writes dir/report.md, like Plot without an outDir, but
// without claiming or locking dir: it is the figure step of Run and Merge
// (Options.Plot), which hold dir's lock already.
func Figures(dir, format string) ([]string, error) {
	return figures(dir, "", FigureOptions{Format: format})
}

// figures draws into outDir (dir/plots when empty) and writes report.md
// into outDir (dir when empty).
func figures(dir, outDir string, fo FigureOptions) ([]string, error) {
	figDir, reportDir := outDir, outDir
	if outDir == "" {
		figDir, reportDir = filepath.Join(dir, plotsDir), dir
	}
	if err := fsutil.NoLink(figDir); err != nil {
		return nil, err
	}
	if err := checkFigureOutputs(figDir, reportDir, fo.Format); err != nil {
		return nil, err
	}
	c, m, err := runConfig(dir)
	if err != nil {
		return nil, err
	}
	opt, dens, err := figureOptions(dir, fo.Format, c, m) // figureInputs, c and m kept for the report
	if err != nil {
		return nil, err
	}
	if fo.Smooth != nil {
		opt.Smooth = *fo.Smooth
	}
	if fo.SeedLines != nil {
		opt.SeedLines = *fo.SeedLines
	}
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", figDir, err)
	}
	figs, err := plotting.RunFigures(dir, figDir, dens, opt)
	if err != nil {
		return figs, err
	}
	return figs, plotting.ReportTo(dir, reportDir, figs, reportInfo(dir, opt, c, m))
}

// checkFigureOutputs refuses (checkFileTargets) a figure of
// plotting.FigureNames in format in figDir, or a report in reportDir,
// that smrl could not write.
func checkFigureOutputs(figDir, reportDir, format string) error {
	paths := []string{filepath.Join(reportDir, plotting.ReportFile), filepath.Join(reportDir, plotting.ReportHTMLFile)}
	for _, name := range plotting.FigureNames {
		paths = append(paths, filepath.Join(figDir, name+"."+format))
	}
	return checkFileTargets(paths...)
}

// checkFileTargets refuses, as invalid input naming it, any of paths (files
// of smrl's own that it writes by a rename, which replaces a regular file
// or a link) that holds a folder or another file that is neither: the
// rename would fail only after the work before it, with the old files
// replaced or removed.
func checkFileTargets(paths ...string) error {
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
			what := "a folder"
			if !fi.IsDir() {
				what = "not a regular file (" + fi.Mode().Type().String() + ")"
			}
			return errs.Invalid(fmt.Errorf("%s is %s, where smrl writes a file of that name: remove or rename it", p, what))
		}
	}
	return nil
}

// reportInfo describes the run of the results directory dir, whose
// config.yaml and MDP are c and m (runConfig), for its report: the
// config's name, the description and command line of its metadata.json,
// and the warnings of its journal (runWarnings).
func reportInfo(dir string, opt plotting.Options, c *config.Config, m *env.MDP) plotting.ReportInfo {
	info := plotting.ReportInfo{Columns: opt.Columns, Smooth: opt.Smooth, Name: c.Name}
	if ws := runWarnings(dir, c, m); len(ws) > 0 {
		for _, w := range ws {
			info.Warnings = append(info.Warnings, w.String())
		}
		if opt.Columns != nil {
			col := *opt.Columns
			col.Flagged = results.FlagSeeds(ws)
			info.Columns = &col
		}
	}
	// The report's command line and description only: a bad metadata.json
	// is the format check's to refuse (results.ReadFormatVersion).
	if meta, err := results.ReadMetadata(dir); err == nil && meta != nil {
		info.CommandLine, info.Description = meta.CommandLine, meta.ConfigDescription
	}
	return info
}

// runConfig returns the config of the results directory dir, read from
// its config.yaml as a snapshot (which may hold sections of parts the run
// did not use, as earlier smrl versions wrote them), and its MDP.
func runConfig(dir string) (*config.Config, *env.MDP, error) {
	cfgPath := filepath.Join(dir, results.ConfigFile)
	if _, err := os.Stat(cfgPath); errors.Is(err, os.ErrNotExist) {
		// Without it the CSV files cannot be checked: a truncated or
		// partial file would be drawn as if it were a finished run.
		return nil, nil, errs.Invalid(fmt.Errorf("%s not found: smrl draws a results directory only with the config.yaml its run wrote, against which it checks that the CSV files are complete", cfgPath))
	} else if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", cfgPath, err)
	}
	c, err := config.Load(config.Options{Path: cfgPath, Snapshot: true})
	if err != nil {
		return nil, nil, err
	}
	m, err := env.New(c)
	if err != nil {
		return nil, nil, errs.Invalid(fmt.Errorf("%s: %w", cfgPath, err))
	}
	return c, m, nil
}

// figureInputs returns the figure options and densities of the results
// directory dir, from its config.yaml (runConfig), which it checks dir's
// CSV files against: complete, and episodes, seeds and steps within the
// config's.
func figureInputs(dir, format string) (plotting.Options, plotting.DensitySource, error) {
	c, m, err := runConfig(dir)
	if err != nil {
		return plotting.Options{Format: format}, nil, err
	}
	return figureOptions(dir, format, c, m)
}

// figureOptions is figureInputs for the config c of dir and its MDP m.
func figureOptions(dir, format string, c *config.Config, m *env.MDP) (plotting.Options, plotting.DensitySource, error) {
	opt := plotOptions(format, c)
	opt.Horizon, opt.Episodes, opt.Seeds = c.Env.Horizon, c.Episodes, c.Seeds
	opt.Smooth, opt.SeedLines = c.Plot.Smooth, c.Plot.SeedLines
	opt.InTrueFamily = func(agent string) bool { return config.InTrueFamily(c, agent) }
	if err := checkComplete(dir, c); err != nil {
		return opt, nil, err
	}
	col := TableColumns(c, m)
	opt.Columns = &col
	if m.Box == nil {
		opt.Actions = m.Actions
	}
	if m.True != nil && m.StateDim() == 1 && m.ActionDim() == 1 {
		return opt, &densities{mdp: m}, nil
	}
	if m.Live == nil { // a live environment's transition cannot be drawn at a query state
		opt.Marginals = &marginals{mdp: m}
	}
	return opt, nil, nil
}

// plotOptions are the figure options of c's plot keys that every figure
// honours, its size and font, in format.
func plotOptions(format string, c *config.Config) plotting.Options {
	opt := plotting.Options{Format: format, FontSize: c.Plot.FontSize}
	if c.Plot.Width != config.DefaultPlot.Width || c.Plot.Height != config.DefaultPlot.Height {
		// A size the config chose; the default leaves each figure its
		// own (the densities figure is larger).
		opt.Width, opt.Height = vg.Length(c.Plot.Width)*vg.Inch/96, vg.Length(c.Plot.Height)*vg.Inch/96
	}
	return opt
}

// checkFigureInputs checks everything figures reads in dir without
// drawing: a sweep checks all its points before it draws the first.
//
// Beyond what drawing needs (every cell as smrl writes it), the CSV files
// must be exactly those the directory's journal makes (checkAgainstJournal).
func checkFigureInputs(dir, format string) error {
	c, m, err := runConfig(dir)
	if err != nil {
		return err
	}
	opt, _, err := figureOptions(dir, format, c, m)
	if err != nil {
		return err
	}
	if err := plotting.CheckResults(dir, opt); err != nil {
		return err
	}
	return checkAgainstJournal(dir, c, m)
}

// checkComplete verifies that dir's episodes.csv has one row per (trial,
// episode) of its config (and shard), and summary.csv one row per (agent,
// episode), so that a file cut at a row boundary is not drawn as if it
// were a finished run.
func checkComplete(dir string, c *config.Config) error {
	all := record.Trials(c)
	idx := recordedShard(dir).Select(len(all))
	agents := map[string]bool{}
	for _, k := range idx {
		agents[all[k].Agent] = true
	}
	for _, f := range []struct {
		name, unit string
		count      int
	}{
		{results.EpisodesFile, "trials", len(idx)},
		{results.SummaryFile, "agents", len(agents)},
	} {
		path := filepath.Join(dir, f.name)
		b, err := os.ReadFile(path)
		if err != nil {
			return errs.Invalid(fmt.Errorf("reading %s: %w", path, err))
		}
		if len(b) == 0 {
			return errs.Invalid(fmt.Errorf("%s is empty (not even its header): the file is truncated or not smrl's", path))
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			return errs.Invalid(fmt.Errorf("%s does not end with a newline: the file is truncated", path))
		}
		rows := bytes.Count(b, []byte("\n")) - 1
		if want := f.count * c.Episodes; rows != want {
			return errs.Invalid(fmt.Errorf("%s has %d rows but %s implies %d (%d %s × %d episodes): the file is truncated or from another run",
				path, rows, results.ConfigFile, want, f.count, f.unit, c.Episodes))
		}
	}
	return nil
}

// NewDensities returns the model densities of c's MDP for the density
// figures: the true model, and an agent's or method's estimate (lds and its
// variants as the Gaussian model with lds.sigma, the others in the true
// family). It needs a 1-D state and action.
func NewDensities(c *config.Config) (plotting.DensitySource, error) {
	m, err := env.New(c)
	if err != nil {
		return nil, errs.Invalid(err)
	}
	if m.True == nil {
		return nil, errs.Invalid(fmt.Errorf("density figures need env.kind expfam (a true model to draw), the config has env.kind %s", m.Kind))
	}
	if m.StateDim() != 1 || m.ActionDim() != 1 {
		return nil, errs.Invalid(fmt.Errorf("density figures need a 1-D state and action, the config has d_s = %d and action_dim = %d", m.StateDim(), m.ActionDim()))
	}
	return &densities{mdp: m}, nil
}

// marginals serves the next-state marginals figure: at the MDP's query
// state and its first action, draws of the true transition and each
// agent's learned per-coordinate marginal.
type marginals struct{ mdp *env.MDP }

func (m *marginals) action() []float64 {
	if m.mdp.Box != nil {
		a := make([]float64, len(m.mdp.Box.Low))
		for i := range a {
			a[i] = 0.5 * (m.mdp.Box.Low[i] + m.mdp.Box.High[i])
		}
		return a
	}
	return m.mdp.Actions[0]
}

// Query names the query state by its coordinates' labels, and the action.
func (m *marginals) Query() string {
	var parts []string
	for i, v := range m.mdp.Query {
		name := fmt.Sprintf("s%d", i)
		if i < len(m.mdp.Labels) {
			name = m.mdp.Labels[i]
		}
		parts = append(parts, fmt.Sprintf("%s = %.3g", name, v))
	}
	var acts []string
	for _, v := range m.action() {
		acts = append(acts, fmt.Sprintf("%.3g", v))
	}
	return fmt.Sprintf("%s; a = %s", strings.Join(parts, ", "), strings.Join(acts, ", "))
}

// Mean returns the agent's predicted mean next state at the query, s'
// itself or, for a model of s' − s, the query plus the predicted change.
func (m *marginals) Mean(agent string, w []float64) ([]float64, bool) {
	model, ok := learnedModel(agent, m.mdp.Model, m.mdp.Model.Features, w)
	if !ok {
		return nil, false
	}
	out := make([]float64, m.mdp.Dim)
	expfam.NewMeanStepper(model).Step(m.mdp.Query, m.action(), nil, out)
	if m.mdp.Model.Delta {
		for i := range out {
			out[i] += m.mdp.Query[i]
		}
	}
	return out, true
}
func (m *marginals) Labels() []string  { return m.mdp.Labels }
func (m *marginals) Scales() []float64 { return m.mdp.Model.LDSSigma }

func (m *marginals) TrueSamples(n int) [][]float64 {
	sim := m.mdp.Dynamics.NewSimulator()
	rng := rand.New(rand.NewPCG(1, 2))
	a := m.action()
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, m.mdp.Dim)
		sim.Step(m.mdp.Query, a, rng, out[i])
	}
	return out
}

func (m *marginals) Estimated(agent string, w []float64) ([]plotting.Density, bool) {
	model, ok := learnedModel(agent, m.mdp.Model, m.mdp.Model.Features, w)
	if !ok {
		return nil, false
	}
	eta := make([]float64, model.Dist.StatDim())
	model.Eta(m.mdp.Query, m.action(), make([]float64, model.Feat.Dim()), eta)
	out := make([]plotting.Density, m.mdp.Dim)
	var chained []plotting.Density // a family sampled by MCMC: densities of draws
	if _, ok := model.Dist.(*expfam.MCMC); ok {
		chained = chainMarginals(model, m.mdp.Query, m.action())
	}
	for i := range out {
		var f plotting.Density
		if chained != nil {
			f = chained[i]
		} else {
			var err error
			if f, err = expfam.Marginal(model.Dist, eta, i); err != nil {
				return nil, false
			}
		}
		if m.mdp.Model.Delta { // a model of s' − s: shift by the query state
			q := m.mdp.Query[i]
			out[i] = func(x float64) float64 { return f(x - q) }
			continue
		}
		out[i] = f
	}
	return out, true
}

// chainDraws is the number of draws behind the marginals of a family
// sampled by MCMC.
const chainDraws = 20000

// chainMarginals returns the marginal densities of the coordinates of s'
// under model (a family sampled by MCMC, whose marginals have no closed
// form) at (s, a): Gaussian kernel density estimates of chainDraws draws of
// its chains (a Stepper, warm-started at s, with a fixed stream), with
// Silverman's bandwidth, binned on 512 cells.
func chainMarginals(model *expfam.Model, s, a []float64) []plotting.Density {
	d := model.Dist.StateDim()
	st := expfam.NewStepper(model)
	rng := rand.New(rand.NewPCG(3, 4))
	draws := make([][]float64, d)
	x := make([]float64, d)
	for range chainDraws {
		st.Step(s, a, rng, x)
		for i, v := range x {
			draws[i] = append(draws[i], v)
		}
	}
	out := make([]plotting.Density, d)
	for i := range out {
		out[i] = kde(draws[i])
	}
	return out
}

// kde is the Gaussian kernel density estimate of xs with Silverman's
// bandwidth 1.06 σ n^(−1/5), the draws binned on 512 cells first.
func kde(xs []float64) plotting.Density {
	n := float64(len(xs))
	var mean, sq float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return func(float64) float64 { return 0 }
		}
		mean += x / n
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	for _, x := range xs {
		sq += (x - mean) * (x - mean) / n
	}
	h := 1.06 * math.Sqrt(sq) * math.Pow(n, -0.2)
	if !(h > 0) {
		h = 1e-3
	}
	const cells = 512
	w := (hi - lo) / cells
	if !(w > 0) {
		w = h
	}
	counts := make([]float64, cells)
	for _, x := range xs {
		counts[min(int((x-lo)/w), cells-1)]++
	}
	return func(x float64) float64 {
		var p float64
		for c, k := range counts {
			if k == 0 {
				continue
			}
			z := (x - (lo + (float64(c)+0.5)*w)) / h
			if z*z < 64 {
				p += k * math.Exp(-0.5*z*z)
			}
		}
		return p / (n * h * math.Sqrt(2*math.Pi))
	}
}

// notResultsDir refuses plot's --out dir when it is the results directory
// of a run or a sweep (it holds a config.yaml, journal, episodes.csv or
// sweep.yaml): drawing there would replace its report.md and scatter
// another run's figures among its own.
func notResultsDir(dir string) error {
	for _, f := range []string{results.ConfigFile, results.JournalFile, results.EpisodesFile, grid.ManifestFile} {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return errs.Invalid(fmt.Errorf("--out: %s is the results directory of a run or sweep (it holds %s): plot --out draws into a new or empty directory, or one that only holds figures smrl drew; redraw that directory with smrl plot --in %s", dir, f, dir))
		}
	}
	return nil
}

// PlotOverlay draws the overlay of the results directories dirs (smrl plot
// --in A --in B --out OUT, plotting.OverlayFigures): one figure per
// measure with every run's agents, labelled by labels (nil: each
// directory's base name, which must then differ), into outDir with a
// report.md naming the runs. Every directory is checked as Plot checks it
// before anything is written; outDir must be new, empty or smrl's own
// (outdir.Claim), not one of dirs nor a results directory, and is locked
// while it is written. fo gives the format and the moving window (nil:
// the first run's plot.smooth); the size and font are the first run's
// plot keys.
func PlotOverlay(dirs, labels []string, outDir string, fo FigureOptions) ([]string, error) {
	if len(dirs) < 2 {
		return nil, errs.Invalid(fmt.Errorf("an overlay needs at least two results directories, got %d", len(dirs)))
	}
	if len(labels) == 0 {
		for _, d := range dirs {
			labels = append(labels, filepath.Base(filepath.Clean(d)))
		}
	} else if len(labels) != len(dirs) {
		return nil, errs.Invalid(fmt.Errorf("%d labels for %d results directories: give one --label per --in, in their order", len(labels), len(dirs)))
	}
	for i, l := range labels {
		if strings.TrimSpace(l) == "" {
			return nil, errs.Invalid(fmt.Errorf("label %d is empty", i+1))
		}
		if j := slices.Index(labels[:i], l); j >= 0 {
			return nil, errs.Invalid(fmt.Errorf("results directories %s and %s have the same label %q: name them with --label", dirs[j], dirs[i], l))
		}
	}
	var runs []plotting.OverlayRun
	for i, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, errs.Invalid(fmt.Errorf("results directory %s: not found", d))
		}
		if grid.IsDir(d) {
			return nil, errs.Invalid(fmt.Errorf("%s is a sweep directory: an overlay takes results directories of runs (a sweep's points are under it)", d))
		}
		if sameDir(d, outDir) {
			return nil, errs.Invalid(fmt.Errorf("--out %s is one of the overlaid directories: give a new directory", outDir))
		}
		if err := checkFigureInputs(d, fo.Format); err != nil {
			return nil, err
		}
		opt, _, err := figureInputs(d, fo.Format)
		if err != nil {
			return nil, err
		}
		runs = append(runs, plotting.OverlayRun{Label: labels[i], Dir: d, Opt: opt})
	}
	opt := runs[0].Opt
	opt.Horizon, opt.Episodes, opt.Seeds, opt.Columns = 0, 0, 0, nil
	if fo.Smooth != nil {
		opt.Smooth = *fo.Smooth
	}
	if err := notResultsDir(outDir); err != nil {
		return nil, err
	}
	paths := []string{filepath.Join(outDir, plotting.ReportFile)}
	for _, name := range plotting.FigureNames {
		paths = append(paths, filepath.Join(outDir, name+"."+fo.Format))
	}
	if err := checkFileTargets(paths...); err != nil {
		return nil, err
	}
	undo := undoer(outDir)
	if err := outdir.Claim(outDir); err != nil {
		undo()
		return nil, fmt.Errorf("--out: %w", err)
	}
	release, err := outdir.Lock(outDir)
	if err != nil {
		undo()
		return nil, err
	}
	defer release()
	figs, err := plotting.OverlayFigures(runs, outDir, opt)
	if err == nil {
		err = plotting.OverlayReport(runs, outDir, figs)
	}
	if err != nil {
		undo()
	}
	return figs, err
}
