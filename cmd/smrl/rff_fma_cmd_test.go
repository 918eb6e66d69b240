package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// model.features.fma: a value other than true or false is refused with
// exit 2 naming the key (from --set and from a config file); false, given
// or not, writes the same episodes.csv and w.csv byte for byte (the
// default is the arithmetic of earlier versions: TestTableGolden's
// pendulum-sm case pins those bits); true runs, and its learner's numbers
// differ (the key reaches the features).
func TestRFFFMAKey(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join("..", "..", "configs", "pendulum.yaml")
	code, stdout, stderr := run(t, "config", "--config", cfg, "--set", "model.features.fma=maybe")
	wantUsage(t, code, stdout, stderr, "model.features.fma", "true or false")
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("model:\n  features:\n    fma: 3\n"), 0o644)
	code, stdout, stderr = run(t, "config", "--config", cfg, "--config", bad)
	wantUsage(t, code, stdout, stderr, "bad.yaml line 3", "model.features.fma")

	files := map[string][2][]byte{}
	for _, set := range []string{"", "model.features.fma=false", "model.features.fma=true"} {
		out := filepath.Join(dir, "run"+set)
		args := []string{"run", "--config", cfg, "--set", "agents=[sm]", "--seeds", "1", "--episodes", "2",
			"--set", "env.horizon=20", "--no-plots", "--out", out}
		if set != "" {
			args = append(args, "--set", set)
		}
		code, _, stderr := run(t, args...)
		if code != 0 {
			t.Fatalf("run --set %s: exit %d, %s", set, code, stderr)
		}
		var f [2][]byte
		for i, name := range []string{"episodes.csv", "w.csv"} {
			b, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			f[i] = b
		}
		files[set] = f
	}
	def, off, on := files[""], files["model.features.fma=false"], files["model.features.fma=true"]
	if !bytes.Equal(def[0], off[0]) || !bytes.Equal(def[1], off[1]) {
		t.Error("model.features.fma: false wrote other files than the default")
	}
	if bytes.Equal(def[1], on[1]) {
		t.Error("model.features.fma: true gave the default's Ŵ to the bit")
	}
}
