package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
)

// |Ŵ − W0|_F is recorded and drawn only for the agents whose Ŵ lives in
// the true family: on the paper's custom-sin MDP the lds agent's Gaussian
// W has no w_error and no line (its distance to W0 compared two
// families); with a Gaussian truth of lds.sigma it has both, and with
// another sigma neither.
func TestWErrorFigureOnlyInTrueFamily(t *testing.T) {
	c := quick(t)
	c.Seeds, c.Episodes = 2, 2
	for _, tc := range []struct {
		kind     string
		sigma    float64
		wantLDS  bool
		describe string
	}{
		{"custom-sin", 1, false, "the paper's family"},
		{"gaussian", 1, true, "a Gaussian truth with lds.sigma"},
		{"gaussian", 2, false, "a Gaussian truth of another sigma"},
	} {
		c, err := c.With("env.family.kind", tc.kind) // a copy, its sections too
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Set("env.family.sigma", tc.sigma); err != nil {
			t.Fatal(err)
		}
		if got := config.InTrueFamily(c, "lds"); got != tc.wantLDS {
			t.Errorf("%s: InTrueFamily(lds) = %v, want %v", tc.describe, got, tc.wantLDS)
		}
		if !config.InTrueFamily(c, "sm") {
			t.Errorf("%s: sm is not in the true family", tc.describe)
		}
		dir := t.TempDir()
		if err := Run(context.Background(), c, Options{OutDir: dir, Plot: func(d string) error {
			_, err := Figures(d, "svg")
			return err
		}}); err != nil {
			t.Fatal(err)
		}
		// The runner records no w_error for an agent outside the family.
		_, col, rows := readEpisodes(t, dir)
		for _, r := range rows {
			if r[col["agent"]] == "lds" && (r[col["w_error"]] != "") != tc.wantLDS {
				t.Fatalf("%s: lds's w_error cell %q", tc.describe, r[col["w_error"]])
			}
		}
		svg, err := os.ReadFile(filepath.Join(dir, "plots", "w_error.svg"))
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(string(svg), ">lds<"); has != tc.wantLDS {
			t.Errorf("%s: the w_error figure names lds: %v, want %v", tc.describe, has, tc.wantLDS)
		}
		if !strings.Contains(string(svg), ">sm<") {
			t.Errorf("%s: the w_error figure lacks sm", tc.describe)
		}
	}
}
