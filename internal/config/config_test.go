package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaultsArePaperSettings(t *testing.T) {
	c, err := Load(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Env.Horizon != 10 || c.Episodes != 50 || c.Seeds != 5 || c.Planner.NRollouts != 100 ||
		c.Planner.Tau != 5 || mustValue(t, c, "env.family.alpha") != 1.7 || mustValue(t, c, "env.family.freq") != 4.0 ||
		!reflect.DeepEqual(c.Env.W0, [][]float64{{1, 1}}) || c.Lambda != 1e-4 {
		t.Errorf("defaults differ from the paper: %+v", c)
	}
	// configs/synthetic.yaml is the same experiment as the embedded defaults.
	f, err := Load(Options{Path: "../../configs/synthetic.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if yc, yf := mustYAML(t, c), mustYAML(t, f); yc != yf {
		t.Errorf("configs/synthetic.yaml differs from the embedded defaults:\n%s\n%s", yf, yc)
	}
}

func TestShippedConfigsAreValid(t *testing.T) {
	files, _ := filepath.Glob("../../configs/*.yaml")
	if len(files) == 0 {
		t.Fatal("no configs found")
	}
	for _, p := range files {
		// A grid (smrl sweep) is checked in package grid; its base must be
		// valid here too.
		c, err := Load(Options{Path: p, Sweep: func(_, _ *yaml.Node) error { return nil }})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		// Where the truth is Gaussian, the LDS agent's model must be the
		// truth: its noise is the family's σ.
		if sigma, lds := mustValue(t, c, "env.family.sigma"), mustValue(t, c, "lds.sigma"); c.Env.Family.Kind == "gaussian" && lds != sigma {
			t.Errorf("%s: lds.sigma = %v, but the true noise env.family.sigma = %v", p, lds, sigma)
		}
	}
}

func TestPrecedence(t *testing.T) {
	p := write(t, "episodes: 7\nplanner:\n  tau: 3\n")
	c, err := Load(Options{Path: p})
	if err != nil || c.Episodes != 7 || c.Planner.Tau != 3 || c.Seeds != 5 {
		t.Fatalf("file: %v %+v", err, c)
	}
	env := []string{"SMRL_EPISODES=9", "SMRL_PLANNER_N_ROLLOUTS=12", "SMRL_AGENTS=sm,oracle", "SMRL_SHARD_COUNT=3", "HOME=/x"}
	c, err = Load(Options{Path: p, Environ: env})
	if err != nil || c.Episodes != 9 || c.Planner.NRollouts != 12 || !reflect.DeepEqual(c.Agents, []string{"sm", "oracle"}) {
		t.Fatalf("env: %v %+v", err, c)
	}
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.Int("episodes", 0, "")
	fs.Int("seeds", 0, "")
	if err := fs.Parse([]string{"--episodes", "11"}); err != nil {
		t.Fatal(err)
	}
	flags := map[string]*pflag.Flag{"episodes": fs.Lookup("episodes"), "seeds": fs.Lookup("seeds")}
	c, err = Load(Options{Path: p, Environ: env, Flags: flags})
	if err != nil || c.Episodes != 11 || c.Seeds != 5 {
		t.Fatalf("flag: %v %+v (an unset flag must not override)", err, c)
	}
}

func TestBadConfigs(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"typo", "seeds: 2\nepisods: 5\n", `line 2: unknown key "episods" in the top level`},
		{"nested typo", "planner:\n  n_rollout: 5\n", `line 2: unknown key "n_rollout" in planner`},
		{"not a number", "episodes: abc\n", "episodes"},
		{"horizon", "env:\n  horizon: 0\n", "env.horizon: must be >= 1, got 0"},
		{"rollouts", "planner:\n  n_rollouts: -1\n", "planner.n_rollouts: must be >= 1"},
		{"seeds", "seeds: 0\n", "seeds: must be >= 1"},
		{"episodes", "episodes: 0\n", "episodes: must be >= 1"},
		{"agent", "agents: [sm, foo]\n", `unknown agent "foo"`},
		{"family", "env:\n  family:\n    kind: cauchy\n", `unknown family "cauchy"`},
		{"features", "env:\n  features:\n    kind: poly\n", `unknown features "poly"`},
		{"w0 shape", "env:\n  w0: [[1, 1, 1]]\n", "env.w0: row 0 has 3 entries, want d_phi = 2"},
		{"w0 rows", "env:\n  w0: [[1, 1], [1, 1]]\n", "env.w0: has 2 rows, want d_psi = 1"},
		{"nan", "lambda: .nan\n", "lambda: must be a finite number"},
		{"reference overflows", "stats:\n  normalise: declared\n  reference: [1e308, -1e308]\n", "stats.reference: want two different finite returns [low, high] whose difference is finite"},
		{"box needs random planning", "env:\n  action_space: box\n", "planner.mode: must be random"},
		{"box bounds", "env:\n  action_space: box\n  action_low: [1]\n  action_high: [0]\nplanner:\n  mode: random\n", "action_low <= action_high"},
		{"box width", "env:\n  action_space: box\n  action_low: [0, 0]\nplanner:\n  mode: random\n", "env.action_dim = 1 numbers each, got 2 and 1"},
		{"action space", "env:\n  action_space: sphere\n", `unknown action space "sphere"`},
		{"huge episodes", "episodes: 9223372036854775807\n", "episodes: must be <= 1000000"},
		{"huge n", "estimate:\n  n: 1000000000000\n", "estimate.n: must be <= 100000000"},
		{"huge dim", "env:\n  features: {kind: rff, dim: 99999999}\n", "env.features.dim: must lie in [1, 10000]"},
		{"confidence typo", "confidence:\n  scael: 1\n", `line 2: unknown key "scael" in confidence`},
		{"beta form", "confidence:\n  beta: exact\n", `confidence.beta: unknown form "exact"`},
		{"choice", "confidence:\n  choice: always\n", `confidence.choice: unknown choice "always"`},
		{"scale", "confidence:\n  scale: -1\n", "confidence.scale: must be a finite number >= 0, got -1"},
		{"delta", "confidence:\n  delta: 1\n", "confidence.delta: must lie in (0, 1), got 1"},
		{"alpha1", "confidence:\n  alpha1: 0\n", "confidence.alpha1: must be auto or a finite number > 0, got 0"},
		{"b_psi word", "confidence:\n  b_psi: derive\n", `line 2: confidence.b_psi: want auto or a number, got "derive"`},
		{"b_c negative", "confidence:\n  b_c: -1\n", "confidence.b_c: must be auto or a finite number >= 0, got -1"},
		{"b_psi inf", "confidence:\n  b_psi: .inf\n", "confidence.b_psi: must be auto or a finite number >= 0, got +Inf"},
		{"theory custom-sin", "agents: [sm, sm-ucb]\nconfidence:\n  beta: theory\n",
			"confidence.alpha1: auto gives α₁ = inf C(s') = 0 for the custom-sin family (C(s') = 16 cos²(4 s') vanishes), so the theory β of [sm-ucb] is infinite; use confidence.beta: practical"},
		{"theory x-sin", "env:\n  family: {kind: x-sin, alpha: 2}\n  features: {kind: constant}\n  w0: [[1]]\nagents: [mle-ucb]\nconfidence:\n  beta: theory\n",
			"(sin s' + s' cos s')²"},
		{"theory b_psi", "agents: [sm-ucb]\nconfidence:\n  beta: theory\n  alpha1: 2\n",
			"confidence.b_psi: auto is derived only for Gaussian models"},
		{"value", "confidence:\n  value: best\n", `confidence.value: unknown value "best"`},
		{"rollout per step", "confidence:\n  value: rollout\n  choice: step\n", "confidence.value: rollout scores candidates once per episode; it needs confidence.choice: episode"},
		{"lambda mode", "confidence:\n  lambda: 1\n", `confidence.lambda: unknown λ "1"`},
		{"theorem lambda", "confidence:\n  lambda: theorem\n", "confidence.lambda: theorem (λ = 1/b_star² for the -ucb agents) belongs to the theory β; it needs confidence.beta: theory"},
		{"theorem lambda b_star", "confidence:\n  lambda: theorem\n  beta: theory\n  b_star: 0\n", "confidence.lambda: theorem sets λ = 1/b_star², which needs confidence.b_star > 0"},
		{"b_star", "confidence:\n  b_star: .inf\n", "confidence.b_star: must be a finite number >= 0"},
		{"candidates", "confidence:\n  candidates: 0\n", "confidence.candidates: must be >= 1, got 0"},
		{"posterior scale", "confidence:\n  posterior_scale: -2\n", "confidence.posterior_scale: must be a finite number >= 0, got -2"},
		{"lambda for ucb", "lambda: 0\nagents: [sm, sm-ucb, lds-ps]\n", "lambda: must be > 0 for agents [sm-ucb lds-ps]"},
		{"yaml syntax", "seeds: [1,\n", "c.yaml"},
		{"planner kind", "planner:\n  kind: ilqr\n", `planner.kind: unknown planner "ilqr"`},
		{"mppi needs a box", "planner:\n  kind: mppi\n", "planner.kind: mppi perturbs continuous actions and needs env.action_space: box"},
		{"cem elites", "planner:\n  kind: cem\n  cem:\n    population: 5\n    elites: 6\n", "planner.cem.elites: must lie in [1, planner.cem.population = 5], got 6"},
		{"cem alpha", "planner:\n  kind: cem\n  cem:\n    alpha: 1.5\n", "planner.cem.alpha: must lie in [0, 1], got 1.5"},
		{"mppi temperature", "env:\n  action_space: box\nplanner:\n  kind: mppi\n  mppi:\n    temperature: 0\n", "planner.mppi.temperature: must lie in (0, 1e+12], got 0"},
		{"cem typo", "planner:\n  cem:\n    elite: 3\n", `line 3: unknown key "elite" in planner.cem`},
		{"pendulum torque", "env:\n  kind: pendulum\n  pendulum:\n    max_torque: -1\n", "env.pendulum.max_torque: must lie in [1e-6, 1e6], got -1"},
		{"pendulum noise", "env:\n  kind: pendulum\n  pendulum:\n    noise: cauchy\n", `env.pendulum.noise: unknown noise "cauchy"`},
		{"mountain car start", "env:\n  kind: mountain-car\n  mountain_car:\n    init_high: 0.5\n", "env.mountain_car.init_low: want min_position <= init_low <= init_high < goal_position"},
		{"model target", "env:\n  kind: pendulum\nmodel:\n  target: velocity\n", `model.target: unknown target "velocity"`},
		{"lds features", "env:\n  kind: pendulum\nmodel:\n  lds_features: rff\n", `model.lds_features: unknown features "rff"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, tc.body)
			_, err := Load(Options{Path: p})
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, errs.ErrInvalidInput) {
				t.Errorf("error %v does not wrap ErrInvalidInput", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "c.yaml") {
				t.Errorf("error %q, want it to name the file and contain %q", err, tc.want)
			}
		})
	}
	if _, err := Load(Options{Path: "/nonexistent/x.yaml"}); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "/nonexistent/x.yaml") {
		t.Errorf("missing file: %v", err)
	}
}

// A file holds one YAML document: the keys of a second one were ignored
// silently, unknown keys included.
func TestOneDocument(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"episodes: 1\nseeds: 1\n---\nfoo: 4\nseeds: 9\n", "c.yaml line 3: a second YAML document starts here; a config file holds one document"},
		{"episodes: 1\n---\n", "c.yaml line 2: a second YAML document starts here"},
		{"---\nepisodes: 1\n---\nepisodes: 2\n", "c.yaml line 3: a second YAML document starts here"},
		{"episodes: 1\n...\nseeds: 2\n", "(after the first YAML document; a config file holds one)"},
		{"episodes: 1\n---\n: [\n", "(after the first YAML document; a config file holds one)"},
		// One document, with its markers: accepted.
		{"---\nepisodes: 1\n", ""},
		{"episodes: 1\n...\n", ""},
		{"# a comment\n---\nepisodes: 1\n...\n", ""},
	} {
		c, err := Load(Options{Path: write(t, tc.body)})
		switch {
		case tc.want == "" && (err != nil || c.Episodes != 1):
			t.Errorf("%q: err = %v, episodes %v; want one document with episodes 1", tc.body, err, c)
		case tc.want != "" && (!errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: err = %v, want an input error containing %q", tc.body, err, tc.want)
		}
	}
}

func TestConfidenceDefaults(t *testing.T) {
	c, err := Load(Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"beta": "practical", "scale": 1.0, "delta": 0.05, "b_psi": Auto("auto"), "b_c": Auto("auto"), "alpha1": Auto("auto"), "b_star": 10.0,
		"lambda": "shared", "candidates": 16, "choice": "episode", "value": "lookahead", "posterior_scale": 3.0}
	for k, v := range want {
		if got := mustValue(t, c, "confidence."+k); got != v {
			t.Errorf("confidence.%s default %v, want %v", k, got, v)
		}
	}
	// λ = 0 is fine for the greedy agents.
	p := write(t, "lambda: 0\nagents: [sm, lds, oracle]\n")
	if _, err := Load(Options{Path: p}); err != nil {
		t.Errorf("λ = 0 with greedy agents: %v", err)
	}
	// Part.Confidence, declared by each agent's registration, decides; the
	// names below are the registered agents' (an unknown name uses none).
	for _, tc := range []struct {
		agent            string
		uses, optimistic bool
	}{
		{"sm", false, false}, {"sm-ucb", true, true}, {"sm-ps", true, false},
		{"lds-ucb", true, true}, {"mle-ps", true, false}, {"mle", false, false},
		{"oracle", false, false}, {"lqr", false, false}, {"nobody-ucb", false, false},
	} {
		if UsesConfidence(tc.agent) != tc.uses || Optimistic(tc.agent) != tc.optimistic {
			t.Errorf("UsesConfidence(%q) = %v, Optimistic = %v; want %v, %v", tc.agent, UsesConfidence(tc.agent), Optimistic(tc.agent), tc.uses, tc.optimistic)
		}
	}
	p = write(t, "agents: [sm-ucb, sm-ps, mle-ucb, oracle]\nconfidence:\n  beta: theory\n  choice: step\n  b_psi: 2\n  b_c: 0.5\n")
	c, err = Load(Options{Path: p, Environ: []string{"SMRL_CONFIDENCE_CANDIDATES=4", "SMRL_CONFIDENCE_POSTERIOR_SCALE=0.5", "SMRL_CONFIDENCE_ALPHA1=0.25"}})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]any{"beta": "theory", "choice": "step", "candidates": 4, "posterior_scale": 0.5,
		"b_psi": Auto("2"), "b_c": Auto("0.5"), "alpha1": Auto("0.25")} {
		if got := mustValue(t, c, "confidence."+k); got != v {
			t.Errorf("confidence.%s from file and environment: %v, want %v", k, got, v)
		}
	}
	// auto derives the constants of Gaussian models: the gaussian family, and
	// the lds agents' own model in any family; λ = 1/b_star² on request.
	for _, body := range []string{
		"env:\n  family: {kind: gaussian}\nagents: [sm-ucb, mle-ucb, lds-ucb]\nconfidence:\n  beta: theory\n  lambda: theorem\n",
		"agents: [sm, lds-ucb, sm-ps]\nconfidence:\n  beta: theory\n  value: rollout\n",
	} {
		if _, err := Load(Options{Path: write(t, body)}); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// Auto values round-trip through config.yaml as numbers or the word auto.
func TestAutoYAML(t *testing.T) {
	c, err := Load(Options{Path: write(t, "agents: [sm-ucb]\nconfidence:\n  b_psi: 1.5e-3\n  b_c: 0\n")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"b_psi: 0.0015\n", "b_c: 0\n", "alpha1: auto\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, b)
		}
	}
	if v, auto, err := mustValue(t, c, "confidence.b_psi").(Auto).Float(); v != 0.0015 || auto || err != nil {
		t.Errorf("b_psi = %v, %v, %v", v, auto, err)
	}
}

// A bad value is reported against where it was set.
func TestErrorsNameTheirSource(t *testing.T) {
	p := write(t, "seeds: 2\n")
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.Int("episodes", 0, "")
	fs.Parse([]string{"--episodes", "0"})
	_, err := Load(Options{Path: p, Flags: map[string]*pflag.Flag{"episodes": fs.Lookup("episodes")}})
	if err == nil || !strings.Contains(err.Error(), "--episodes: episodes: must be >= 1") || strings.Contains(err.Error(), "c.yaml") {
		t.Errorf("flag: %v", err)
	}
	_, err = Load(Options{Path: p, Environ: []string{"SMRL_SEEDS=0"}})
	if err == nil || !strings.Contains(err.Error(), "SMRL_SEEDS: seeds: must be >= 1") {
		t.Errorf("env value: %v", err)
	}
	_, err = Load(Options{Path: p, Environ: []string{"SMRL_EPISODES=abc"}})
	if err == nil || !errors.Is(err, errs.ErrInvalidInput) || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), `SMRL_EPISODES="abc": episodes must be an integer`) {
		t.Errorf("env type: %v", err)
	}
	_, err = Load(Options{Path: write(t, "episodes: 0\n")})
	if err == nil || !strings.Contains(err.Error(), "c.yaml: episodes: must be >= 1") {
		t.Errorf("file: %v", err)
	}
}

func TestYAMLRoundTrip(t *testing.T) {
	c, _ := Load(Options{})
	b, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	p := write(t, string(b))
	c2, err := Load(Options{Path: p})
	if err != nil {
		t.Fatal(err)
	}
	if mustYAML(t, c) != mustYAML(t, c2) {
		t.Errorf("round trip changed the config")
	}
}

func mustYAML(t *testing.T, c *Config) string {
	t.Helper()
	b, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mustValue returns c's value of key.
func mustValue(t *testing.T, c *Config, key string) any {
	t.Helper()
	v, err := c.Value(key)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
