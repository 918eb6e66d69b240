package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

// FuzzLoad feeds arbitrary bytes to the config loader as a YAML file. It
// must never panic; it either accepts a config that validates and renders
// back to YAML, or returns an input error.
func FuzzLoad(f *testing.F) {
	f.Add(Default())
	f.Add([]byte("episodes: 3\nseeds: 2\n"))
	f.Add([]byte("env:\n  w0: [[1, -1]]\n"))
	f.Add([]byte("episods: 5\n"))
	f.Add([]byte("planner: {n_rollouts: -1}\n"))
	f.Add([]byte("env:\n  family: {kind: gaussian, dim: 3, sigma: 0.5}\n  features: {kind: affine}\n"))
	f.Add([]byte("agents: [sm, sm]\n"))
	f.Add([]byte("lambda: .inf\n"))
	f.Add([]byte(":\n- ]["))
	f.Add([]byte("agents: [sm-ucb]\nconfidence: {beta: theory, b_psi: auto, alpha1: 0.5, lambda: theorem, value: rollout}\n"))
	f.Add([]byte("episodes: 3\nsweep:\n  planner.tau: [1, 2]\nseeds: 2\n")) // smrl sweep's section: refused here
	f.Add([]byte("{sweep: {a: 1}, sweep: 2}\n"))
	f.Add([]byte("env:\n  family: {kind: expression, log_q: \"-abs(x)^1.7/1.7\", psi: [\"sin(4*x)\"], support: [-.inf, 3]}\n  reward: {expression: \"s0*a0\"}\n  terminal: \"s0 > 1\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "fuzz.yaml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(Options{Path: p})
		if err != nil {
			if !errors.Is(err, errs.ErrInvalidInput) {
				t.Fatalf("error %v is not an input error", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Load accepted a config that does not validate: %v", err)
		}
		if _, err := c.YAML(); err != nil {
			t.Fatalf("accepted config does not render: %v", err)
		}
	})
}
