package config

import (
	"math"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// sameEncoding reports where the trees a and b differ in what yaml's
// encoder writes of a node (kind, style, tag, value, children); "" when
// they do not. Positions are not written.
func sameEncoding(a, b *yaml.Node, at string) string {
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || len(a.Content) != len(b.Content) ||
		a.Anchor != b.Anchor || a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment {
		return at + ": " + b.Value + " " + b.Tag + " written as " + a.Value + " " + a.Tag
	}
	for i := range a.Content {
		if d := sameEncoding(a.Content[i], b.Content[i], at+"/"+a.Content[i&^1].Value); d != "" {
			return d
		}
	}
	return ""
}

// odd holds values whose YAML the emitter writes in a style of its own.
type odd struct {
	S       []string
	Named   Auto
	Autos   []Auto
	F       []float64
	F32     float32
	I       []int
	U       uint64
	B       []bool
	D       time.Duration
	Empty   []int
	Nil     []string `yaml:"nil"`
	Ptr     *Reward
	PtrNil  *Reward
	Any     any
	AnyNil  any
	Map     map[string]int
	Omit    string    `yaml:"omit,omitempty"`
	OmitZ   float64   `yaml:"omitz,omitempty"`
	OmitS   []float64 `yaml:"omits,omitempty"`
	Nested  [][]float64
	Inner   struct{ A, B int }
	AllOmit struct {
		X int `yaml:"x,omitempty"`
	}
	Flow   []int `yaml:"flow,flow"`
	N      int   `yaml:"n"`
	Y      int   `yaml:"y"`
	hidden int   // unexported: not written
	Skip   int   `yaml:"-"`
}

// encodeNode gives the tree Encode gives (less positions): of every
// shipped config, each of its sections and shared sections, and of values
// that YAML writes quoted, in flow style, as null or through a marshaler.
func TestEncodeNodeIsEncode(t *testing.T) {
	var values []any
	for _, c := range shippedConfigs(t) {
		values = append(values, c)
		for _, v := range c.parts {
			values = append(values, v)
		}
	}
	values = append(values, &odd{
		S: []string{"", "n", "N", "y", "yes", "no", "on", "off", "true", "null", "~", "-", "--- x", "...", "1e3", "0x10", "0o7", "1_000", "12:30",
			"a: b", "a #b", "#c", " lead", "trail ", "multi\nline", "multi\nline\n", "tab\tx", "[x]", "{x}", "'q'", "\"q\"", "é", "\x01", "@x", "`x", "!x", "&x", "*x", "%x", "|", ">", "?", ",", ".inf", "-.inf", ".nan", "2026-11-28", "3.0", "+1", "-0"},
		Named: "auto", Autos: []Auto{"auto", "3", "-0", "1e-7", "x", ""},
		F:   []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e21, 1e-7, 5e-324, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 100, 1.5},
		F32: 0.1, I: []int{0, -1, math.MaxInt64, math.MinInt64}, U: math.MaxUint64, B: []bool{true, false}, D: 1500 * time.Millisecond,
		Empty: []int{}, Ptr: &Reward{Width: 2, Centers: []float64{1}}, Any: Auto("5"), Map: map[string]int{"b": 1, "a": 2},
		Omit: "x", Nested: [][]float64{{1, -1}, {}, nil}, Flow: []int{1, 2}, N: 1, Y: 2, hidden: 3,
	}, &odd{}, Auto("auto"), nil, []any{nil, 1, "n", []int{}}, struct{}{}, &Config{})
	for i, v := range values {
		got, err := encodeNode(v)
		if err != nil {
			t.Fatal(err)
		}
		var want yaml.Node
		if err := want.Encode(v); err != nil {
			t.Fatal(err)
		}
		if d := sameEncoding(got, &want, ""); d != "" {
			t.Errorf("value %d (%T): the trees differ at %s", i, v, d)
		}
		a, err1 := encodeYAML(got)
		b, err2 := encodeYAML(&want)
		if err1 != nil || err2 != nil || string(a) != string(b) {
			t.Errorf("value %d (%T): written\n%s\nnot\n%s(%v, %v)", i, v, a, b, err1, err2)
		}
	}
}
