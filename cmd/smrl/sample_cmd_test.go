package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sampleGaussCoupled = `
env:
  family: {kind: gaussian-coupled, precision: [[2, 0.6], [0.6, 1]]}
  features: {kind: affine}
  w0: [[0.5, 0, 0.3, 0.1], [0, 0.5, -0.2, 0]]
`

func TestSampleCommand(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", sampleGaussCoupled)
	code, out, errOut := run(t, "sample", "--config", cfg, "--state", "0,0", "--action", "1", "--n", "5")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "s_next0,s_next1" || len(lines) != 6 {
		t.Errorf("stdout:\n%s", out)
	}
	if !strings.Contains(errOut, "5 independent draws by the family's exact sampler") {
		t.Errorf("stderr: %s", errOut)
	}
	// A joint expression family: chains, and their diagnostics.
	twin := writeFile(t, dir, "t.yaml", strings.Replace(sampleGaussCoupled, "{kind: gaussian-coupled, precision: [[2, 0.6], [0.6, 1]]}",
		`{kind: expression, log_q: "-0.5*(2*x0^2 + 1.2*x0*x1 + x1^2)", psi: [x0, x1]}`, 1))
	code, out, errOut = run(t, "sample", "--config", twin, "--state", "0,0", "--action", "1", "--n", "40")
	if code != ExitOK || strings.Count(out, "\n") != 41 {
		t.Fatalf("exit %d, %d lines: %s", code, strings.Count(out, "\n"), errOut)
	}
	for _, want := range []string{"hmc, 4 chains × 10 draws", "acceptance", "split-R̂", "s_next1"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not mention %q:\n%s", want, errOut)
		}
	}
}

func TestSampleRefusals(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", sampleGaussCoupled)
	for _, tc := range []struct {
		name string
		args []string
		has  []string
	}{
		{"state too long", []string{"sample", "--config", cfg, "--state", "0,0,0", "--action", "1"}, []string{"--state: expected 2 numbers"}},
		{"action too short", []string{"sample", "--config", cfg, "--state", "0,0", "--action", ""}, []string{"--action"}},
		{"not positive definite", []string{"sample", "--config", writeFile(t, dir, "b1.yaml", strings.Replace(sampleGaussCoupled, "[[2, 0.6], [0.6, 1]]", "[[1, 2], [2, 1]]", 1)),
			"--state", "0,0", "--action", "1"}, []string{"env.family.precision", "not a symmetric positive definite matrix"}},
		{"not symmetric", []string{"sample", "--config", writeFile(t, dir, "b2.yaml", strings.Replace(sampleGaussCoupled, "[[2, 0.6], [0.6, 1]]", "[[2, 0.6], [0.5, 1]]", 1)),
			"--state", "0,0", "--action", "1"}, []string{"env.family.precision"}},
		{"dim disagrees", []string{"sample", "--config", cfg, "--set", "env.family.dim=3", "--state", "0,0", "--action", "1"}, []string{"env.family.dim: must agree with env.family.precision's 2 rows"}},
		{"not normalisable", []string{"sample", "--config", writeFile(t, dir, "b3.yaml", strings.Replace(sampleGaussCoupled, "{kind: gaussian-coupled, precision: [[2, 0.6], [0.6, 1]]}",
			`{kind: expression, log_q: "0.1*x0^2 - x1^2", psi: [x0, x1]}`, 1)), "--state", "0,0", "--action", "1"}, []string{"env.family", "not normalisable"}},
		{"bad sampler", []string{"sample", "--config", writeFile(t, dir, "b4.yaml", strings.Replace(sampleGaussCoupled, "{kind: gaussian-coupled, precision: [[2, 0.6], [0.6, 1]]}",
			`{kind: coupled-sin, dim: 2}`, 1)), "--set", "sampler.step_size=fast", "--state", "0,0", "--action", "1"}, []string{`sampler.step_size: must be auto or a number in (0, 100], got "fast"`}},
		{"hex step size", []string{"sample", "--config", filepath.Join(dir, "b4.yaml"), "--set", "sampler.step_size=0x1p-2", "--state", "0,0", "--action", "1"},
			[]string{`sampler.step_size: must be auto or a number in (0, 100], got "0x1p-2"`}},
		{"--method without --model", []string{"sample", "--method", "sm", "--state", "0", "--action", "1"}, []string{"--method chooses a model of --model FILE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, tc.args...)
			wantUsage(t, code, out, errOut, tc.has...)
		})
	}
}

// TestSampleModelFile draws from the models smrl estimate saved, and
// refuses a method the file does not hold.
func TestSampleModelFile(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", sampleGaussCoupled)
	model := filepath.Join(dir, "m.json")
	if code, _, errOut := run(t, "estimate", "--config", cfg, "--n", "300", "--method", "sm,lds", "--save-model", model, "-q"); code != ExitOK {
		t.Fatalf("estimate: exit %d: %s", code, errOut)
	}
	code, out, errOut := run(t, "sample", "--model", model, "--method", "lds", "--state", "0,0", "--action", "1", "--n", "3")
	if code != ExitOK || !strings.HasPrefix(out, "s_next0,s_next1\n") || strings.Count(out, "\n") != 4 {
		t.Fatalf("exit %d: %s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, "sample", "--model", model, "--method", "mle", "--state", "0,0", "--action", "1")
	wantUsage(t, code, out, errOut, `holds no model of method "mle"`)
}

// TestJointChainDivergesMidRun: a joint expression family whose log q is
// NaN beyond x0 = 9 passes the load-time check (η = W0·phi keeps the
// chains near the initial states) and diverges once the states grow:
// exit 2 naming the state, and no NaN in any file of the results
// directory.
func TestJointChainDivergesMidRun(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", `
seeds: 1
episodes: 3
agents: [oracle]
env:
  horizon: 20
  family:
    kind: expression
    log_q: "-0.5*(x0^2 + x1^2) + log(9 - x0)"
    psi: ["x0", "x1"]
  features: {kind: affine}
  w0: [[1.5, 0, 1, 0.5], [0, 0.5, -0.2, 0]]
planner: {n_rollouts: 2, tau: 2}
`)
	out := filepath.Join(dir, "out")
	code, stdout, errOut := run(t, "run", "--config", cfg, "--out", out, "-q", "--no-plots")
	wantUsage(t, code, stdout, errOut, "the true transition drew a non-finite state from s = [", "the sampler's chain diverged there")
	files, _ := os.ReadDir(out)
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(out, f.Name()))
		if strings.Contains(strings.ToLower(string(b)), "nan") {
			t.Errorf("%s holds a NaN", f.Name())
		}
	}
}

// TestEstimateJointFamilyCVAndSandwich: smrl estimate on coupled-sin (a
// joint family sampled by MCMC) chooses λ by cross-validation and reports
// finite sandwich standard errors, as for products.
func TestEstimateJointFamilyCVAndSandwich(t *testing.T) {
	code, out, errOut := run(t, "estimate", "--config", "../../examples/joint/coupled-d2.yaml", "--n", "300", "--method", "sm", "--lambda", "cv", "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Lambda    float64           `json:"lambda"`
		CV        []json.RawMessage `json:"cv"`
		Estimates []struct {
			SE [][]float64 `json:"se"`
		} `json:"estimates"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.CV) == 0 || !(r.Lambda > 0) || len(r.Estimates) != 1 || len(r.Estimates[0].SE) != 2 {
		t.Fatalf("want a cv table, λ > 0 and one 2-row estimate: %s", out)
	}
	for _, row := range r.Estimates[0].SE {
		for _, v := range row {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Errorf("standard error %v", v)
			}
		}
	}
}

// TestCoupledRunDoesNotDependOnWorkers: a run on a joint family (the true
// environment and the planners on chains) writes the same episodes.csv on
// 1 and 2 workers. Four leapfrog steps per proposal instead of the
// config's 8 halve the chains' gradients (mle's fits were half the test's
// CPU) and leave every chain, fit and worker path in place.
func TestCoupledRunDoesNotDependOnWorkers(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, w := range []string{"1", "2"} {
		out := filepath.Join(dir, "w"+w)
		code, _, errOut := run(t, "run", "--config", "../../configs/coupled.yaml", "--seeds", "2", "--episodes", "2", "--set", "env.horizon=4", "--set", "sampler.leapfrog=4",
			"--set", fewDraws, "--workers", w, "--out", out, "--no-plots", "-q")
		if code != ExitOK {
			t.Fatalf("workers %s: exit %d: %s", w, code, errOut)
		}
		b, err := os.ReadFile(filepath.Join(out, "episodes.csv"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, string(b))
	}
	if files[0] != files[1] {
		t.Error("episodes.csv differs between 1 and 2 workers")
	}
}
