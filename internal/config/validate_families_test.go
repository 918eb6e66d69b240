package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

func TestBadFamilyConfigs(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"kink mode", "env:\n  family: {kind: relu}\n  w0: [[1, 1], [1, 1]]\nmodel:\n  kink: smooth\n", `model.kink: unknown mode "smooth"`},
		{"weight cap", "env:\n  family: {kind: relu}\n  w0: [[1, 1], [1, 1]]\nmodel:\n  weight_cap: -1\n", "model.weight_cap: must lie in [0, 1000]"},
		// Issue 18's rule: the keys of the relu and bounded families are
		// exit 2 under a family that does not read them.
		{"kink unselected", "model:\n  kink: kernel\n", "model.kink: is set but env.family.kind is custom-sin"},
		{"weight cap unselected", "model:\n  weight_cap: 1\n", "model.weight_cap: is set but env.family.kind is custom-sin"},
		{"low unselected", "env:\n  family: {low: 0}\n", "env.family.low: is set but env.family.kind is custom-sin"},
		{"kink unselected model", "env:\n  kind: pendulum\nmodel:\n  family: [gaussian]\n  kink: kernel\n", "model.kink: is set but model.family is gaussian"},
		{"beta cap", "env:\n  family: {kind: beta}\n  w0: [[1, 1], [1, 1]]\nmodel:\n  weight_cap: 0.7\n", "model.weight_cap: the beta family's distance to the boundary is at most 0.5"},
		{"truncated support", "env:\n  family: {kind: truncated-gaussian, low: 1, high: 1}\n", "env.family.low: truncated-gaussian needs"},
		{"relu sigma", "env:\n  family: {kind: relu, sigma: 0}\n  w0: [[1, 1], [1, 1]]\n", "env.family.sigma: must lie in [1e-3, 1e3] for relu"},
		{"relu w0 rows", "env:\n  family: {kind: relu}\n", "env.w0: is not set, and the embedded default (the paper's W0, 1 × 2) does not fit this family and features: they need d_psi = 2 rows"},
		{"gamma w0 rows", "env:\n  family: {kind: gamma, dim: 2}\n  w0: [[1, 1]]\n", "env.w0: has 1 rows, want d_psi = 4"},
		{"model family", "env:\n  kind: pendulum\nmodel:\n  family: [weibull]\n", `model.family: unknown family "weibull"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(Options{Path: write(t, tc.body)})
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want invalid input containing %q", err, tc.want)
			}
		})
	}
	for _, body := range []string{
		"env:\n  family: {kind: relu-mog}\n  w0: [[1, 1], [1, 1], [0, 1]]\n",
		"env:\n  family: {kind: exponential}\n  features: {kind: affine}\n  w0: [[0.1, 0, 2]]\n",
		"env:\n  family: {kind: truncated-gaussian, low: 0, high: 2}\n  w0: [[1, 1]]\nmodel:\n  weight_cap: 0.5\n",
		"env:\n  kind: pendulum\nmodel:\n  family: [relu]\n  kink: none\n  weight_cap: 0.5\n",
		"env:\n  kind: pendulum\nmodel:\n  family: [beta, gamma, relu]\n",
	} {
		if _, err := Load(Options{Path: write(t, body)}); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}
