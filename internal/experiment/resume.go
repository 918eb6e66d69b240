package experiment

import (
	"fmt"
	"os"
	"slices"
	"sort"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/runner"
	"go.yaml.in/yaml/v3"
)

// ignoredKeys do not change results, so runs that differ only in them may
// be resumed or merged together: the workers, and how the figures are
// drawn (the plot section).
var ignoredKeys = []string{"workers", "plot.smooth", "plot.seed_lines", "plot.width", "plot.height", "plot.font_size"}

// flatten returns the config as "a.b.c" → value strings.
func flatten(c *config.Config) (map[string]string, error) {
	b, err := c.YAML()
	if err != nil {
		return nil, err
	}
	var tree map[string]any
	if err := yaml.Unmarshal(b, &tree); err != nil {
		return nil, err
	}
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok {
			for k, x := range m {
				key := k
				if prefix != "" {
					key = prefix + "." + k
				}
				walk(key, x)
			}
			return
		}
		out[prefix] = fmt.Sprint(v)
	}
	walk("", tree)
	for _, k := range ignoredKeys {
		delete(out, k)
	}
	return out, nil
}

// configDiff returns the first key (in sorted order) whose value differs
// between a and b, or "" when they agree.
func configDiff(a, b *config.Config) (key, va, vb string, err error) {
	fa, err := flatten(a)
	if err != nil {
		return "", "", "", err
	}
	fb, err := flatten(b)
	if err != nil {
		return "", "", "", err
	}
	var keys []string
	for k := range fa {
		keys = append(keys, k)
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	keys = slices.Compact(keys)
	for _, k := range keys {
		if fa[k] != fb[k] {
			return k, valueOrUnset(fa, k), valueOrUnset(fb, k), nil
		}
	}
	return "", "", "", nil
}

// valueOrUnset is f[k], or "(not in the snapshot)" for a key a snapshot
// leaves out (a key the run does not use, or an option left at its
// default such as stats.save_se), so that a message never ends in "vs ".
func valueOrUnset(f map[string]string, k string) string {
	if v, ok := f[k]; ok {
		return v
	}
	return "(not in the snapshot)"
}

// sameConfig checks that the config a results directory was made with
// (path) is the resolved config c, naming the first key that differs.
func sameConfig(path string, c *config.Config) error {
	if _, err := os.Stat(path); err != nil {
		return errs.Invalid(fmt.Errorf("--resume: %s not found: nothing to resume there", path))
	}
	old, err := config.Load(config.Options{Path: path, Snapshot: true})
	if err != nil {
		return err
	}
	key, was, now, err := configDiff(old, c)
	if err != nil {
		return err
	}
	if key != "" {
		hint := ""
		if key == "sm.floor" && was == "0" {
			hint = " (a results directory of an earlier smrl, which fit the paper's plain score matching, reads as sm.floor = 0: --set sm.floor=0 resumes it as it ran)"
		}
		return errs.Invalid(fmt.Errorf("--resume: %s has %s = %s, but the resolved config has %s = %s%s; resume with the same config, or start a new run in another --out", path, key, was, key, now, hint))
	}
	return nil
}

// notInShard returns an error when a journal being resumed (at path) holds
// trial t, number k in the run's order, that shard does not contain: the
// directory was made with another --shard, and resuming would mix two
// shards' trials in one directory (which merge then refuses).
func notInShard(path string, t record.Trial, k int, shard runner.Shard) error {
	if shard.Contains(k) {
		return nil
	}
	return errs.Invalid(fmt.Errorf("--resume: %s holds trial agent %s seed %d, which is not in shard %s: the directory was made with another --shard; resume it with that --shard",
		path, t.Agent, t.Seed, shard))
}
