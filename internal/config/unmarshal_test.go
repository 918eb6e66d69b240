package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// unmarshalViper is what unmarshalExact replaces: a viper holding only m.
func unmarshalViper(m map[string]any, out any) error {
	v := viper.New()
	if err := v.MergeConfigMap(m); err != nil {
		return err
	}
	return v.UnmarshalExact(out)
}

// decodeViper is decode as it was, one viper per section.
func decodeViper(v *viper.Viper, source string) (*Config, error) {
	all := v.AllSettings()
	c := &Config{parts: map[string]any{}}
	for _, path := range sectionPaths() {
		x := reflect.New(sectionType(path))
		if err := unmarshalViper(cutPath(all, path), x.Interface()); err != nil {
			return nil, fmt.Errorf("%s: %s: %s", source, path, strings.Join(strings.Fields(err.Error()), " "))
		}
		c.parts[path] = x.Interface()
	}
	for path, sub := range cutShared(all) {
		x := reflect.New(sharedAt(path).typ)
		if err := unmarshalViper(sub, x.Interface()); err != nil {
			return nil, fmt.Errorf("%s: %s: %s", source, path, strings.Join(strings.Fields(err.Error()), " "))
		}
		c.parts[path] = x.Interface()
	}
	if err := unmarshalViper(all, c); err != nil {
		return nil, fmt.Errorf("%s: %s", source, strings.Join(strings.Fields(err.Error()), " "))
	}
	return c, nil
}

// layered returns the viper of Load's sources for opt, before decode.
func layered(t *testing.T, opt Options) *viper.Viper {
	t.Helper()
	l, err := newLayers(opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, path := range l.paths {
		if err := l.mergeFile(i, path); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.mergeEnviron(); err != nil {
		t.Fatal(err)
	}
	l.mergeSetsAndFlags()
	if err := l.mergePoint(); err != nil {
		t.Fatal(err)
	}
	return l.v
}

// decode gives what one viper per section gave: the same core keys and
// sections for every shipped config, with values set by --set of every
// kind that reaches decode, and the same error for every value it
// refuses.
func TestDecodeIsViper(t *testing.T) {
	sweep := func(k, v *yaml.Node) error { return nil }
	var opts []Options
	for name := range shippedConfigs(t) {
		opts = append(opts, Options{Path: "../../" + name, Sweep: sweep})
	}
	set := func(kv ...any) Options {
		var s []Setting
		for i := 0; i+1 < len(kv); i += 2 {
			s = append(s, Setting{Key: kv[i].(string), Value: kv[i+1], Source: "--set"})
		}
		return Options{Set: s}
	}
	opts = append(opts,
		set("episodes", "abc"), set("episodes", 2.5), set("episodes", "7"), set("seed", -1),
		set("agents", "sm,lds"), set("agents", ""), set("agents", []any{map[any]any{1: "x"}}),
		set("env.w0", "x"), set("env.w0", []any{[]any{1, "2"}}), set("lambda", "cv"), set("lambda", []int{1}),
		set("planner.kind", "cem", "planner.cem.iterations", "many"), set("env.family.freq", "high"),
		set("env.cartpole.gravity", map[string]any{"Up": 1}), set("confidence.b_psi", 3), set("sm.floor", true),
		set("env.reward", map[string]any{"Width": 2, "nosuch": nil, "empty": map[string]any{}}),
		set("env", map[any]any{"KIND": "cartpole"}), set("nosuch", 1), set("env.nosuch", []any{}),
	)
	for _, opt := range opts {
		name := fmt.Sprint(opt.Path, opt.Set)
		got, err1 := decode(layered(t, opt), "src")
		want, err2 := decodeViper(layered(t, opt), "src")
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Errorf("%s: decode: %v, with viper: %v", name, err1, err2)
			continue
		}
		if err1 != nil {
			continue
		}
		got.memo, got.Planner.Section = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decode gives\n%+v\nwith viper\n%+v", name, got, want)
		}
	}
}
