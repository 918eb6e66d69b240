package grid

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"go.yaml.in/yaml/v3"
)

// Point is one grid point.
type Point struct {
	Index  int   // position in the grid's order, from 0
	Coords []int // the index of its value on each axis
	// Name is its results directory's name (see DirName).
	Name string
	// Label names it in messages: KEY=VALUE for every axis, as in Name but
	// neither escaped nor cut ("env.w0=[[1,-1]]", where Name has
	// env.w0=%5B%5B1%2C-1%5D%5D).
	Label string
	// Config is the point's resolved, validated config (set by Load).
	Config *config.Config
}

// Points lists the grid points in order: the first axis varies slowest,
// as in nested loops over the axes in order.
func (g *Grid) Points() []Point {
	n := g.Size()
	out := make([]Point, n)
	if g.Sample > 0 {
		for i, coords := range g.points {
			out[i] = Point{Index: i, Coords: coords, Name: g.DirName(coords), Label: g.Label(coords)}
		}
		return out
	}
	for i := range out {
		coords := make([]int, len(g.Axes))
		rest := i
		for k := len(g.Axes) - 1; k >= 0; k-- {
			m := len(g.Axes[k].Values)
			coords[k] = rest % m
			rest /= m
		}
		out[i] = Point{Index: i, Coords: coords, Name: g.DirName(coords), Label: g.Label(coords)}
	}
	return out
}

// Texts returns the value texts of the point with coords, per axis.
func (g *Grid) Texts(coords []int) []string {
	out := make([]string, len(g.Axes))
	for k, a := range g.Axes {
		out[k] = a.Texts[coords[k]]
	}
	return out
}

// maxName bounds a directory name (most file systems allow 255 bytes).
const maxName = 200

// DirName is the results directory name of the point with coords:
// KEY=VALUE for every axis in order, joined by commas
// ("planner.tau=5,planner.n_rollouts=10"), VALUE the value's canonical
// text (Text). Bytes other than ASCII letters, digits and . _ + - are
// written as %XX (hex), so the name is one safe path component and
// different points have different names ("[1,-1]" becomes %5B1%2C-1%5D).
// A name longer than 200 bytes is cut to 183 bytes plus "~" and the first
// 16 hex digits of the SHA-256 of the whole name.
func (g *Grid) DirName(coords []int) string {
	var b strings.Builder
	for k, a := range g.Axes {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(escape(a.Key))
		b.WriteByte('=')
		b.WriteString(escape(a.Texts[coords[k]]))
	}
	name := b.String()
	if len(name) > maxName {
		sum := sha256.Sum256([]byte(name))
		name = name[:maxName-17] + "~" + hex.EncodeToString(sum[:8])
	}
	return name
}

// Label is the readable name of the point with coords, for messages:
// KEY=VALUE for every axis in order, joined by commas, VALUE the value's
// canonical text ("env.w0=[[1,-1]],planner.tau=5").
func (g *Grid) Label(coords []int) string {
	parts := make([]string, len(g.Axes))
	for k, a := range g.Axes {
		parts[k] = a.Key + "=" + a.Texts[coords[k]]
	}
	return strings.Join(parts, ",")
}

func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '+', c == '-':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// Settings are the config settings of the point with coords.
func (g *Grid) Settings(coords []int) []config.Setting {
	out := make([]config.Setting, len(g.Axes))
	for k, a := range g.Axes {
		out[k] = config.Setting{Key: a.Key, Value: a.Values[coords[k]], Source: a.Source}
	}
	return out
}

// Sweep is a resolved sweep: the grid, the base config (the config file,
// SMRL_* variables and flags, before the grid is applied; not validated
// alone) and every point with its config.
type Sweep struct {
	Grid   *Grid
	Base   *config.Config
	Points []Point
}

// Load resolves a sweep. opt says where the base config comes from, as
// for config.Load (opt.Sweep and opt.Point are set here); set are the
// --set arguments. Every point's config is the base config with the point's
// values set above every other source, resolved and validated as
// config.Load does; its name is the base name plus "+" and the point's
// 1-based number, zero-padded (synthetic+03), so that smrl run --config
// POINTDIR/config.yaml writes to a directory of its own. A bad key or value,
// or a point whose config is invalid, is an error (wrapping
// errs.ErrInvalidInput) naming the point, the key and the value; so are
// two points with the same config, and more than MaxTrials trials.
func Load(opt config.Options, set []string) (*Sweep, error) {
	return LoadContext(context.Background(), opt, set)
}

// LoadContext is Load that stops between points when ctx is cancelled (a
// large grid takes seconds to validate), with an error wrapping
// errs.ErrInterrupted. It writes nothing.
func LoadContext(ctx context.Context, opt config.Options, set []string) (*Sweep, error) {
	return LoadSample(ctx, opt, set, 0)
}

// LoadSample is LoadContext with random search: sample > 0 draws that many
// points from the axes (see sample.go) in place of the grid, as does a
// sweep: section's sample: N when sample is 0.
func LoadSample(ctx context.Context, opt config.Options, set []string, sample int) (*Sweep, error) {
	var file []*Axis
	fileSample := 0
	opt.Sweep = func(k, v *yaml.Node) error {
		var err error
		if fileSample, err = cutSample(opt.Path, v); err != nil {
			return err
		}
		file, err = FromSection(opt.Path, k, v)
		return err
	}
	opt.NoValidate = true
	base, err := config.Load(opt)
	if err != nil {
		return nil, err
	}
	var flags []*Axis
	for _, s := range set {
		a, err := ParseSet(s)
		if err != nil {
			return nil, err
		}
		flags = append(flags, a)
	}
	g, err := combine(file, flags, opt.Warn)
	if err != nil {
		return nil, err
	}
	if sample == 0 {
		sample = fileSample
	}
	if sample > 0 {
		g, err = g.sampled(sample, base.Seed)
	} else {
		err = g.checkSize()
	}
	if err != nil {
		return nil, err
	}
	popt := opt
	popt.Sweep = func(*yaml.Node, *yaml.Node) error { return nil } // read above
	popt.NoValidate = false
	popt.Warn = nil // said once, for the base
	points := g.Points()
	width := len(fmt.Sprint(len(points)))
	var bad []error
	seen := map[string]string{}
	for i := range points {
		if ctx.Err() != nil {
			return nil, Interrupted(i, len(points))
		}
		p := &points[i]
		popt.Point = g.Settings(p.Coords)
		c, err := config.Load(popt)
		if err != nil {
			bad = append(bad, fmt.Errorf("sweep point %s: %w", p.Label, err))
			continue
		}
		c.Name = pointName(base.Name, i+1, width)
		p.Config = c
		// Two points with one config (confidence.b_psi 3 and 3.0) would
		// run the same trials twice under two names.
		key, err := sameAs(c)
		if err != nil {
			return nil, err
		}
		if other, dup := seen[key]; dup {
			if keys := unusedKeys(g.Keys(), c); len(keys) > 0 {
				return nil, errs.Invalid(fmt.Errorf("sweep points %s and %s run the same trials: with env.kind %s and planner.kind %s the run does not use %s; "+
					"sweep keys that change the run (the settings of several env or planner kinds: one sweep per kind)",
					other, p.Label, c.Env.Kind, c.Planner.Kind, strings.Join(keys, ", ")))
			}
			return nil, errs.Invalid(fmt.Errorf("sweep points %s and %s have the same config: give each value once", other, p.Label))
		}
		seen[key] = p.Label
	}
	switch len(bad) {
	case 0:
	case 1:
		return nil, bad[0]
	default:
		return nil, fmt.Errorf("%w (and %d more invalid points)", bad[0], len(bad)-1)
	}
	if err := checkTrials(points); err != nil {
		return nil, err
	}
	return &Sweep{Grid: g, Base: base, Points: points}, nil
}

// checkTrials refuses a sweep of more than MaxTrials trials, counted from
// the points' configs before anything is allocated per trial.
func checkTrials(points []Point) error {
	total, agents, seeds := 0, 0, 0 // agents, seeds: the most of any point (either may be swept)
	for _, p := range points {
		total += len(p.Config.Agents) * p.Config.Seeds
		agents, seeds = max(agents, len(p.Config.Agents)), max(seeds, p.Config.Seeds)
	}
	if total <= MaxTrials {
		return nil
	}
	return errs.Invalid(fmt.Errorf("the sweep has %d trials (points × agents × seeds: %d × up to %d × up to %d), more than the %d a sweep may run: "+
		"give fewer seeds or points, or split the grid into several sweeps", total, len(points), agents, seeds, MaxTrials))
}

// unusedKeys returns the keys c does not use (config.Unused).
func unusedKeys(keys []string, c *config.Config) []string { return c.Unused(keys) }

// sameAs is the point's effective config (config.Effective) with its name
// and workers blanked: equal for two points that run the same trials.
func sameAs(c *config.Config) (string, error) {
	d := *c.Effective()
	d.Name, d.Workers = "", 0
	b, err := d.YAML()
	return string(b), err
}

// pointName is the config name of point k (1-based) of a grid of points
// whose numbers have width digits: base+k, base cut so that the name fits
// the 100 bytes a config name may have.
func pointName(base string, k, width int) string {
	suffix := fmt.Sprintf("+%0*d", width, k)
	if len(base)+len(suffix) > 100 {
		base = base[:100-len(suffix)]
	}
	return base + suffix
}

// YAML renders the sweep as a config file that smrl sweep --config reads
// back to the same sweep: the resolved base config followed by the grid's
// sweep: section.
func (s *Sweep) YAML() ([]byte, error) {
	var users []*config.Config
	for _, p := range s.Points {
		users = append(users, p.Config)
	}
	b, err := s.Base.YAMLFor(users...)
	if err != nil {
		return nil, err
	}
	sec, err := s.Grid.Section()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Write(b)
	out.WriteString("# smrl sweep: the grid; every point is the config above with these keys set\n")
	out.Write(sec)
	return out.Bytes(), nil
}

// Agents are the agents of the sweep's points, each once, in the order
// they first appear (the points in order, each point's in its config's
// order): all points' agents unless agents is swept.
func (s *Sweep) Agents() []string {
	var out []string
	for _, p := range s.Points {
		for _, a := range p.Config.Agents {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// Rows counts the rows of the sweep's table: one per point and agent of
// the point.
func (s *Sweep) Rows() int {
	n := 0
	for _, p := range s.Points {
		n += len(p.Config.Agents)
	}
	return n
}

// ManifestFile is the file at a sweep directory's root that describes the
// sweep (Sweep.YAML); its presence makes a directory a sweep directory.
const ManifestFile = "sweep.yaml"

// IsDir reports whether dir is the root of a sweep (it holds ManifestFile).
func IsDir(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, ManifestFile))
	return err == nil && fi.Mode().IsRegular()
}

// LoadDir loads the sweep of the sweep directory dir from its
// ManifestFile, with no SMRL_* variables or flags.
func LoadDir(dir string) (*Sweep, error) {
	p := filepath.Join(dir, ManifestFile)
	if _, err := os.Stat(p); err != nil {
		return nil, errs.Invalid(fmt.Errorf("%s: not a sweep directory (no %s)", dir, ManifestFile))
	}
	return Load(config.Options{Path: p, Snapshot: true}, nil)
}

// Interrupted is the error of a sweep stopped by a signal while its grid
// was being checked (done of n points), before anything was written.
func Interrupted(done, n int) error {
	return fmt.Errorf("%w while checking the grid (%d of %d points checked); nothing was written", errs.ErrInterrupted, done, n)
}
