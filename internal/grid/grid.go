// Package grid is the parameter grid of smrl sweep: the swept config keys
// and their values (from --set KEY=VALUES and a config file's sweep:
// section), the grid points (the Cartesian product of the values, the
// first key varying slowest), each point's resolved config and results
// directory name, and the sweep table sweep.csv.
//
// (The estimation sweep of smrl estimate, error against sample size, is
// another thing: package estimate.)
//
// A key's values are written as
//
//	V1,V2,...     values of the key's type; a list key's values must be in
//	              brackets: env.actions=[1,-1] is one point (the list
//	              1, -1), [1,-1],[2,-2] two points; commas inside brackets
//	              do not separate, and a bare 1,-1 is refused (an
//	              SMRL_ENV_ACTIONS=1,-1 variable, by contrast, is one list)
//	lin:a:b:n     n ≥ 2 values evenly spaced from a to b
//	log:a:b:n     n ≥ 2 values evenly spaced in log from a > 0 to b > 0
//
// agents is a list key like env.actions: agents=[sm,oracle],[lds,oracle]
// is two points, one running sm and the oracle, the other lds and the
// oracle (a sweep: section writes agents: [[sm, oracle], [lds, oracle]]).
//
// Range values are rounded to 12 significant digits (lin:0:1:11 gives 0.3,
// not 0.30000000000000004); for an integer key every value of a range must
// be a whole number (to 1e-9), else the range is an error.
package grid

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"go.yaml.in/yaml/v3"
)

// Scale is how an axis' values were given.
type Scale int

// Scales.
const (
	List Scale = iota // values listed one by one
	Lin               // lin:a:b:n
	Log               // log:a:b:n
)

// MaxPoints bounds the number of grid points of a sweep.
const MaxPoints = 10_000

// MaxTrials bounds the trials of a sweep, Σ over its points of agents ×
// seeds: a sweep holds a few words per trial (its journal keys, its jobs)
// before any runs, and 10 points of 1 000 000 seeds took 1.6 GB just to
// print the plan of --dry-run. One run's limits (seeds ≤ 1 000 000) are
// per point; the sum is bounded here.
const MaxTrials = 1_000_000

// maxRange bounds n of one range.
const maxRange = 10_000

// Axis is one swept key and its values.
type Axis struct {
	Key    string
	Scale  Scale
	Values []any    // typed, as config.ParseValue returns them
	Texts  []string // each value's canonical text (Text)
	// Range is the range as given ("lin:1:10:10") for Lin and Log.
	Range string
	// Source names where the axis was given: "--set" or "FILE line N".
	Source string
}

// Numeric reports whether the axis' values are numbers (int, uint, float
// keys), and returns them.
func (a *Axis) Numeric() ([]float64, bool) {
	out := make([]float64, len(a.Values))
	for i, v := range a.Values {
		switch x := v.(type) {
		case int64:
			out[i] = float64(x)
		case uint64:
			out[i] = float64(x)
		case float64:
			out[i] = x
		default:
			return nil, false
		}
	}
	return out, true
}

// LogSpaced reports whether the axis is best drawn on a log axis: a log:
// range, or at least three positive numbers spanning a factor of 10 or
// more that are more evenly spaced in log than linearly (1, 2, 3, 5, 10 or
// 10, 30, 100; not 1, 2, 3, 4, 5).
func (a *Axis) LogSpaced() bool {
	if a.Scale == Log {
		return true
	}
	x, ok := a.Numeric()
	if !ok || a.Scale == Lin || len(x) < 3 {
		return false
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	lx := make([]float64, len(x))
	for i, v := range x {
		if !(v > 0) {
			return false
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		lx[i] = math.Log(v)
	}
	return hi >= 10*lo && spread(lx) < spread(x)
}

// spread is the coefficient of variation of the steps between successive
// values: 0 for evenly spaced values.
func spread(x []float64) float64 {
	n := float64(len(x) - 1)
	var m, ss float64
	for i := 1; i < len(x); i++ {
		m += x[i] - x[i-1]
	}
	m /= n
	for i := 1; i < len(x); i++ {
		d := x[i] - x[i-1] - m
		ss += d * d
	}
	return math.Sqrt(ss/n) / math.Abs(m)
}

// notSwept are the keys a grid may not sweep, with the reason.
var notSwept = map[string]string{
	"name":    "the points' names are made from the grid",
	"workers": "it does not change results",
}

// Text is the canonical text of a key's value: integers in decimal, floats
// in Go's shortest round-trip form (1e-05, 0.3), bools as true/false,
// strings as they are, lists as YAML flow sequences without spaces
// ([[1,-1]]).
func Text(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice {
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = Text(config.Plain(rv.Index(i)))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprint(v)
}

// checkKey checks that key can be swept and returns its type.
func checkKey(key string) (reflect.Type, error) {
	t, err := config.KeyType(key)
	if err != nil {
		return nil, err
	}
	if why, ok := notSwept[key]; ok {
		return nil, errs.Invalid(fmt.Errorf("%s cannot be swept: %s", key, why))
	}
	if strings.HasPrefix(key, "estimate.") {
		return nil, errs.Invalid(fmt.Errorf("%s cannot be swept: only smrl estimate reads it", key))
	}
	return t, nil
}

// ParseSet parses one --set argument, KEY=VALUES (see the package
// documentation). Errors wrap errs.ErrInvalidInput and quote the argument.
func ParseSet(arg string) (*Axis, error) {
	key, spec, ok := strings.Cut(arg, "=")
	key = strings.TrimSpace(key)
	fail := func(err error) (*Axis, error) {
		return nil, errs.Invalid(fmt.Errorf("--set %s: %w", arg, err))
	}
	if !ok || key == "" {
		return fail(errors.New("want KEY=VALUES, e.g. planner.tau=1,5,10 or lambda=log:1e-6:1e-2:5"))
	}
	a, err := parseSpec(key, spec)
	if err != nil {
		return fail(err)
	}
	a.Source = "--set"
	return a, nil
}

// parseSpec parses the values of key written as in --set.
func parseSpec(key, spec string) (*Axis, error) {
	t, err := checkKey(key)
	if err != nil {
		return nil, err
	}
	spec = strings.TrimSpace(spec)
	if kind, _, ok := strings.Cut(spec, ":"); ok && (kind == "lin" || kind == "log") {
		return parseRange(key, t, spec)
	}
	texts, err := splitTop(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %q: %w", key, spec, err)
	}
	a := &Axis{Key: key, Scale: List}
	for _, text := range texts {
		if strings.TrimSpace(text) == "" {
			return nil, fmt.Errorf("%s: empty value in %q", key, spec)
		}
		if bareList(t, text) {
			// SMRL_ENV_ACTIONS=1,-1 is one list; here the commas separate
			// grid points, so that 1,-1 would be two one-entry lists.
			return nil, fmt.Errorf("%s is a list key: write each of its values in brackets: %s=[%s] is one point (the list %s), %s=[1,-1],[2,-2] two points",
				key, key, spec, spec, key)
		}
		v, err := config.ParseValue(key, text)
		if err != nil {
			return nil, err
		}
		a.Values = append(a.Values, v)
	}
	return a, a.finish()
}

// splitTop splits s at the commas outside brackets. Unbalanced brackets
// are an error.
func splitTop(s string) ([]string, error) {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
			if depth < 0 {
				return nil, errors.New("unbalanced brackets: a ] closes no [")
			}
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if depth > 0 {
		return nil, errors.New("unbalanced brackets: a [ is not closed")
	}
	return append(out, s[start:]), nil
}

// parseRange parses lin:a:b:n or log:a:b:n for a numeric key of type t.
func parseRange(key string, t reflect.Type, spec string) (*Axis, error) {
	parts := strings.Split(spec, ":")
	kind := parts[0]
	if len(parts) != 4 {
		return nil, fmt.Errorf("%s: range %q: want %s:FROM:TO:COUNT, e.g. %s:1:100:5", key, spec, kind, kind)
	}
	auto := t == reflect.TypeOf(config.Auto(""))
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
	default:
		if !auto {
			return nil, fmt.Errorf("%s: range %q: ranges are for numeric keys, and %s is a %s; list its values instead", key, spec, key, kindName(t))
		}
	}
	a, err1 := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSpace(parts[2]), 64)
	if err1 != nil || err2 != nil || !finite(a) || !finite(b) {
		return nil, fmt.Errorf("%s: range %q: FROM and TO must be finite numbers", key, spec)
	}
	n, err := strconv.Atoi(strings.TrimSpace(parts[3]))
	if err != nil || n < 2 || n > maxRange {
		return nil, fmt.Errorf("%s: range %q: COUNT must be a whole number in [2, %d]", key, spec, maxRange)
	}
	if kind == "log" && !(a > 0 && b > 0) {
		return nil, fmt.Errorf("%s: range %q: a log range needs FROM > 0 and TO > 0", key, spec)
	}
	ax := &Axis{Key: key, Scale: Lin, Range: spec}
	if kind == "log" {
		ax.Scale = Log
	}
	for i := 0; i < n; i++ {
		var x float64
		switch {
		case i == 0:
			x = a
		case i == n-1:
			x = b
		case kind == "lin":
			x = (a*float64(n-1-i) + b*float64(i)) / float64(n-1)
		default:
			x = math.Exp((math.Log(a)*float64(n-1-i) + math.Log(b)*float64(i)) / float64(n-1))
		}
		var v any
		switch t.Kind() {
		case reflect.Int, reflect.Int64, reflect.Uint64:
			r := math.Round(x)
			if math.Abs(x-r) > 1e-9*math.Max(1, math.Abs(x)) {
				return nil, fmt.Errorf("%s: range %q gives %s, which is not a whole number, and %s is an integer key; choose a range of whole numbers or list the values", key, spec, strconv.FormatFloat(x, 'g', 12, 64), key)
			}
			if t.Kind() == reflect.Uint64 {
				if r < 0 || r >= math.MaxUint64 {
					return nil, fmt.Errorf("%s: range %q gives %g, outside [0, 2^64)", key, spec, r)
				}
				v = uint64(r)
			} else {
				if math.Abs(r) >= math.MaxInt64 {
					return nil, fmt.Errorf("%s: range %q gives %g, outside the integers", key, spec, r)
				}
				v = int64(r)
			}
		default:
			x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
			v = x
			if auto {
				v = strconv.FormatFloat(x, 'g', -1, 64)
			}
		}
		ax.Values = append(ax.Values, v)
	}
	return ax, ax.finish()
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true/false key"
	case reflect.String:
		return "text key"
	case reflect.Slice:
		return "list key"
	}
	return t.String()
}

// finish fills in the texts and refuses a value given twice.
func (a *Axis) finish() error {
	seen := map[string]bool{}
	a.Texts = make([]string, len(a.Values))
	for i, v := range a.Values {
		a.Texts[i] = Text(v)
		if seen[a.Texts[i]] {
			return fmt.Errorf("%s: value %s is given twice", a.Key, a.Texts[i])
		}
		seen[a.Texts[i]] = true
	}
	if len(a.Values) == 0 {
		return fmt.Errorf("%s: no values", a.Key)
	}
	return nil
}

// FromSection parses a config file's sweep: section (the key and value
// nodes of the file at path): a mapping from config keys to a list of
// values or a string written as in --set.
func FromSection(path string, key, value *yaml.Node) ([]*Axis, error) {
	if value.Kind != yaml.MappingNode {
		return nil, errs.Invalid(fmt.Errorf("%s line %d: %s: want a mapping from config keys to values, e.g. planner.tau: [1, 5, 10]", path, key.Line, key.Value))
	}
	var out []*Axis
	first := map[string]int{}
	for i := 0; i+1 < len(value.Content); i += 2 {
		k, v := value.Content[i], resolveAlias(value.Content[i+1])
		src := fmt.Sprintf("%s line %d", path, k.Line)
		if line, dup := first[k.Value]; dup {
			return nil, errs.Invalid(fmt.Errorf("%s: %s.%s is swept twice (first at line %d)", src, key.Value, k.Value, line))
		}
		first[k.Value] = k.Line
		var a *Axis
		var err error
		switch v.Kind {
		case yaml.ScalarNode:
			a, err = parseSpec(k.Value, v.Value)
		case yaml.SequenceNode:
			a, err = sequence(k.Value, v)
		default:
			err = fmt.Errorf("%s: want a list of values or a range such as lin:1:10:10", k.Value)
		}
		var le *config.LineError
		switch {
		case errors.As(err, &le):
			// The line of the value (of a list's entry, on a line of its
			// own in block style), said once.
			return nil, errs.Invalid(fmt.Errorf("%s line %d: %s: %s: %s", path, le.Line, key.Value, le.Key, le.Msg))
		case err != nil:
			return nil, errs.Invalid(fmt.Errorf("%s: %s: %w", src, key.Value, err))
		}
		a.Source = src
		out = append(out, a)
	}
	return out, nil
}

// sequence decodes a YAML list of values of key.
func sequence(key string, n *yaml.Node) (*Axis, error) {
	if _, err := checkKey(key); err != nil {
		return nil, err
	}
	a := &Axis{Key: key, Scale: List}
	for _, e := range n.Content {
		v, err := config.DecodeValue(key, resolveAlias(e))
		if err != nil {
			return nil, err
		}
		a.Values = append(a.Values, v)
	}
	return a, a.finish()
}

// Grid is the swept keys, in order: the first varies slowest.
type Grid struct {
	Axes []*Axis
	// Sample, when > 0, is a random search (sample.go): Axes then hold
	// the values drawn, points the drawn points' coordinates and given
	// the axes as given (which sweep.yaml records, with sample: N).
	Sample int
	given  []*Axis
	points [][]int
}

// Combine builds the grid of a config file's sweep: section and the --set
// arguments: the file's keys in its order, a --set key replacing the
// file's axis of the same key (with a note to warn, when not nil), the
// other --set keys after them. A key given twice with --set is an error,
// and so is an empty grid or one of more than MaxPoints points.
func Combine(file, set []*Axis, warn func(string)) (*Grid, error) {
	g, err := combine(file, set, warn)
	if err != nil {
		return nil, err
	}
	return g, g.checkSize()
}

// combine is Combine without the bound on the grid's points (a random
// search draws some of them only).
func combine(file, set []*Axis, warn func(string)) (*Grid, error) {
	g := &Grid{Axes: append([]*Axis(nil), file...)}
	given := map[string]bool{}
	for _, a := range set {
		if given[a.Key] {
			return nil, errs.Invalid(fmt.Errorf("--set %s is given twice: list all its values in one --set", a.Key))
		}
		given[a.Key] = true
		replaced := false
		for i, f := range g.Axes {
			if f.Key == a.Key {
				if warn != nil {
					warn(fmt.Sprintf("note: --set %s=%s replaces the sweep of %s in %s", a.Key, a.spec(), a.Key, f.Source))
				}
				g.Axes[i] = a
				replaced = true
			}
		}
		if !replaced {
			g.Axes = append(g.Axes, a)
		}
	}
	if len(g.Axes) == 0 {
		return nil, errs.Invalid(errors.New("nothing to sweep: give --set KEY=VALUES (e.g. --set planner.tau=1,5,10) or a sweep: section in the config file"))
	}
	return g, nil
}

// checkSize refuses a grid of more than MaxPoints points.
func (g *Grid) checkSize() error {
	n := 1
	for _, a := range g.Axes {
		n *= len(a.Values)
		if n > MaxPoints {
			return errs.Invalid(fmt.Errorf("the grid has more than %d points (%s)", MaxPoints, g.describe()))
		}
	}
	return nil
}

// spec is the axis written as in --set.
func (a *Axis) spec() string {
	if a.Scale != List {
		return a.Range
	}
	return strings.Join(a.Texts, ",")
}

// describe lists the axes' sizes: "planner.tau (5) × planner.n_rollouts (3)".
func (g *Grid) describe() string {
	parts := make([]string, len(g.Axes))
	for i, a := range g.Axes {
		parts[i] = fmt.Sprintf("%s (%d)", a.Key, len(a.Values))
	}
	return strings.Join(parts, " × ")
}

// Size is the number of grid points.
func (g *Grid) Size() int {
	if g.Sample > 0 {
		return len(g.points)
	}
	n := 1
	for _, a := range g.Axes {
		n *= len(a.Values)
	}
	return n
}

// Keys lists the swept keys in order.
func (g *Grid) Keys() []string {
	out := make([]string, len(g.Axes))
	for i, a := range g.Axes {
		out[i] = a.Key
	}
	return out
}

// Diff returns "" when g and h sweep the same keys over the same values in
// the same order, else a description of the first difference.
func (g *Grid) Diff(h *Grid) string {
	if a, b := strings.Join(g.Keys(), ", "), strings.Join(h.Keys(), ", "); a != b {
		return fmt.Sprintf("the swept keys are %s, not %s", a, b)
	}
	for i, a := range g.Axes {
		if x, y := strings.Join(a.Texts, ","), strings.Join(h.Axes[i].Texts, ","); x != y {
			return fmt.Sprintf("%s is swept over %s, not %s", a.Key, x, y)
		}
	}
	return ""
}

// Section renders the grid as a config file's sweep: section: ranges as
// written, lists as YAML flow sequences. FromSection reads it back to the
// same grid.
func (g *Grid) Section() ([]byte, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	axes := g.Axes
	if g.Sample > 0 {
		axes = g.given // the points are drawn again from them
	}
	for _, a := range axes {
		var v yaml.Node
		if a.Scale != List {
			v = yaml.Node{Kind: yaml.ScalarNode, Value: a.Range, Style: yaml.DoubleQuotedStyle}
		} else {
			v = yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, x := range a.Values {
				var e yaml.Node
				if err := e.Encode(x); err != nil {
					return nil, fmt.Errorf("sweep: %s: %w", a.Key, err)
				}
				e.Style |= yaml.FlowStyle
				v.Content = append(v.Content, &e)
			}
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: a.Key}, &v)
	}
	if g.Sample > 0 {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: SampleKey},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(g.Sample)})
	}
	doc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: config.SweepSection}, m}}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// ParseOne parses a --set argument of smrl run, compare, estimate and
// config: KEY=VALUE, one value written as in sweep's --set (a list value
// in brackets: agents=[sm,lds]). Errors wrap errs.ErrInvalidInput and
// quote the argument.
func ParseOne(arg string) (config.Setting, error) {
	key, spec, ok := strings.Cut(arg, "=")
	key = strings.TrimSpace(key)
	if t, err := config.KeyType(key); ok && err == nil && bareList(t, spec) && strings.TrimSpace(spec) != "" {
		// The grammar of sweep's --set, where a bare 1,-1 would be two
		// points: a list value is written in brackets on every command.
		return config.Setting{}, errs.Invalid(fmt.Errorf("--set %s: %s is a list key: write its value in brackets: %s=[%s]", arg, key, key, strings.TrimSpace(spec)))
	}
	if _, noSweep := notSwept[key]; ok && (noSweep || strings.HasPrefix(key, "estimate.")) {
		// Keys a sweep cannot vary take one value here all the same; a
		// list value is written in brackets as elsewhere.
		v, err := config.ParseValue(key, spec)
		if err != nil {
			return config.Setting{}, errs.Invalid(fmt.Errorf("--set %s: %w", arg, err))
		}
		return config.Setting{Key: key, Value: v, Source: "--set"}, nil
	}
	a, err := ParseSet(arg)
	if err != nil {
		return config.Setting{}, err
	}
	if len(a.Values) != 1 {
		return config.Setting{}, errs.Invalid(fmt.Errorf("--set %s: gives %d values; this command takes one value per key (a list in brackets: [1,-1]); smrl sweep runs a grid of values", arg, len(a.Values)))
	}
	return config.Setting{Key: a.Key, Value: a.Values[0], Source: "--set"}, nil
}

// bareList reports whether text, a value of a key of type t, is a list of
// scalars written without its brackets (1,-1 for [1,-1]): --set refuses
// it, since its commas separate a sweep's points.
func bareList(t reflect.Type, text string) bool {
	return t != nil && t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Slice && !strings.HasPrefix(strings.TrimSpace(text), "[")
}

// resolveAlias returns the node a YAML alias (*name) stands for, so that
// a sweep: section reads aliases as what they name (they were reported as
// got "name").
func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 16; i++ {
		n = n.Alias
	}
	return n
}
