package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// modelsBase is a 2-D Gaussian MDP with affine features of one box
// action: W0 is 2 × 4 (d_psi × d_phi).
const modelsBase = `env:
  kind: expfam
  horizon: 25
  family:
    kind: gaussian
    dim: 2
    sigma: 0.5
  features:
    kind: affine
  reward:
    centers: [0, 0]
  action_space: box
  action_dim: 1
  action_low: [-1]
  action_high: [1]
`

// modelsRest are the keys after env: of the configs of these tests: 10
// rollouts per candidate instead of 100 (the oracle's planning was 2.5 s
// of TestModelsWithoutTrueW's 3 s; what is checked is the fit of the data,
// whichever actions drew them).
const modelsRest = "planner:\n  mode: random\n  n_rollouts: 10\nseeds: 1\nepisodes: 40\n"

const modelsW0 = "  w0: [[0.5, 0.2, 0.4, 0.1], [-0.3, 0.6, 0.2, -0.1]]\n"

// writeConfig writes body to dir/name and returns its path.
func writeConfig(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// smWithinSE checks every entry of the sm estimate of r within 4.5
// standard errors of want (d_psi rows): 8 entries, each outside with
// probability below 1e-5.
func smWithinSE(t *testing.T, what string, r estimateJSON, want [][]float64) {
	t.Helper()
	for _, e := range r.Estimates {
		if e.Method != "sm" {
			continue
		}
		for i, row := range want {
			for j, w := range row {
				if d := math.Abs(e.W[i][j] - w); !(d <= 4.5*e.SE[i][j]) {
					t.Errorf("%s: Ŵ[%d][%d] = %v, want %v within 4.5 SE = %v", what, i, j, e.W[i][j], w, 4.5*e.SE[i][j])
				}
			}
		}
		return
	}
	t.Fatalf("%s: no sm estimate", what)
}

// TestModelsWithoutTrueW runs the reuse of models end to end: data drawn
// from a known W0 are fitted with a config that has no env.w0 (the fit
// recovers W0 within its standard errors), the saved model becomes the
// true transition of env.kind model (data drawn from it are fitted back
// to the saved Ŵ within their standard errors), and it warm-starts
// learners (init_model).
func TestModelsWithoutTrueW(t *testing.T) {
	dir := t.TempDir()
	truth := writeConfig(t, dir, "truth.yaml", modelsBase+modelsW0+modelsRest+"agents: [oracle]\n")
	noW0 := writeConfig(t, dir, "now0.yaml", modelsBase+modelsRest)
	data := filepath.Join(dir, "truth", "transitions.csv")
	mustRun(t, "run", "--config", truth, "--out", filepath.Join(dir, "truth"), "--save-transitions", "--no-plots", "-q")

	model := filepath.Join(dir, "model.json")
	r := runJSON(t, "--config", noW0, "--data", data, "--save-model", model)
	smWithinSE(t, "fit without env.w0", r, [][]float64{{0.5, 0.2, 0.4, 0.1}, {-0.3, 0.6, 0.2, -0.1}})
	for _, e := range r.Estimates {
		if e.FrobeniusError != nil {
			t.Errorf("%s: |Ŵ − W0| reported without a true W", e.Method)
		}
	}
	// The saved model scores, and its config (w0: []) loads.
	if code, _, stderr := run(t, "estimate", "--model", model, "--data", data); code != ExitOK {
		t.Fatalf("estimate --model: exit %d: %s", code, stderr)
	}
	var mf struct {
		Models []struct {
			Method string      `json:"method"`
			W      [][]float64 `json:"W"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(read(t, model)), &mf); err != nil {
		t.Fatal(err)
	}
	var smW [][]float64
	for _, m := range mf.Models {
		if m.Method == "sm" {
			smW = m.W
		}
	}

	// env.kind model: its transitions are P_Ŵ of the saved sm model.
	modelEnv := strings.Replace(modelsBase, "  kind: expfam\n", "  kind: model\n  model:\n    file: "+model+"\n    method: sm\n", 1)
	modelEnv = strings.Replace(modelEnv, "  family:\n    kind: gaussian\n    dim: 2\n    sigma: 0.5\n  features:\n    kind: affine\n  reward:\n    centers: [0, 0]\n", "", 1)
	me := writeConfig(t, dir, "model-env.yaml", modelEnv+modelsRest+"agents: [oracle, sm]\n")
	mustRun(t, "run", "--config", me, "--out", filepath.Join(dir, "me"), "--save-transitions", "--no-plots", "-q")
	code, out, stderr := run(t, "estimate", "--config", noW0, "--data", filepath.Join(dir, "me", "transitions.csv"), "--where", "agent=oracle", "--format", "json")
	if code != ExitOK {
		t.Fatalf("estimate on the model environment's data: exit %d: %s", code, stderr)
	}
	var r2 estimateJSON
	if err := json.Unmarshal([]byte(out), &r2); err != nil {
		t.Fatal(err)
	}
	smWithinSE(t, "fit of env.kind model's transitions", r2, smW)
	// Its noise is the saved family's (σ = 0.5): equal n and design give
	// standard errors within 25% of the first fit's.
	if a, b := r.Estimates[0].SE[0][0], r2.Estimates[0].SE[0][0]; !(b > 0.75*a && b < 1.25*a) {
		t.Errorf("standard error of Ŵ[0][0]: %v on env.kind model's data, %v on the truth's: the noise differs", b, a)
	}
	// Its learners learn in the saved model's class: they report |Ŵ − Ŵ_file|.
	if eps := read(t, filepath.Join(dir, "me", "episodes.csv")); !strings.Contains(eps, "w_error") {
		t.Errorf("episodes.csv of env.kind model has no w_error column")
	}

	// init_model: learners plan with the saved Ŵ before their first refit;
	// the snapshot records the file.
	initRun := filepath.Join(dir, "init")
	mustRun(t, "run", "--config", truth, "--agents", "sm,lds", "--episodes", "2", "--init-model", model, "--out", initRun, "--no-plots", "-q")
	if snap := read(t, filepath.Join(initRun, "config.yaml")); !strings.Contains(snap, "init_model: "+model) {
		t.Errorf("config.yaml does not record init_model:\n%s", snap)
	}
}

// TestModelsRefusals: each misuse of a model file or of a missing true W
// is exit 2 naming the key.
func TestModelsRefusals(t *testing.T) {
	dir := t.TempDir()
	truth := writeConfig(t, dir, "truth.yaml", modelsBase+modelsW0+strings.Replace(modelsRest, "episodes: 40", "episodes: 2", 1)+"agents: [oracle]\n")
	mustRun(t, "run", "--config", truth, "--out", filepath.Join(dir, "truth"), "--save-transitions", "--no-plots", "-q")
	data := filepath.Join(dir, "truth", "transitions.csv")
	model := filepath.Join(dir, "model.json")
	noW0 := writeConfig(t, dir, "now0.yaml", modelsBase+modelsRest)
	mustRun(t, "estimate", "--config", noW0, "--data", data, "--save-model", model)

	// A w0 given with --data is still checked.
	bad := writeConfig(t, dir, "bad.yaml", modelsBase+"  w0: [[1, 2]]\n"+modelsRest)
	code, stdout, stderr := run(t, "estimate", "--config", bad, "--data", data)
	wantUsage(t, code, stdout, stderr, "env.w0", "d_psi = 2")
	// A run needs its true W.
	empty := writeConfig(t, dir, "empty.yaml", modelsBase+"  w0: []\n"+modelsRest+"agents: [oracle]\n")
	code, stdout, stderr = run(t, "run", "--config", empty, "--out", filepath.Join(dir, "x"))
	wantUsage(t, code, stdout, stderr, "env.w0", "is empty")

	modelEnv := func(extra string) string {
		return writeConfig(t, dir, "me.yaml", "env:\n  kind: model\n  model:\n"+extra+"  horizon: 5\n  action_space: box\n  action_dim: 1\n  action_low: [-1]\n  action_high: [1]\nplanner:\n  mode: random\nagents: [oracle]\nepisodes: 1\nseeds: 1\n")
	}
	for _, c := range []struct{ extra, want string }{
		{"", "env.model.file: required"},
		{"    file: " + filepath.Join(dir, "absent.json") + "\n", "env.model"},
		{"    file: " + model + "\n    method: bogus\n", "env.model.method"},
	} {
		code, stdout, stderr = run(t, "run", "--config", modelEnv(c.extra), "--out", filepath.Join(dir, "me"))
		wantUsage(t, code, stdout, stderr, c.want)
		if strings.Contains(stderr, "env.model keeps its embedded default") {
			t.Errorf("the error names a section's default, not the key the file set: %s", stderr)
		}
	}
	wide := strings.Replace(read(t, modelEnv("    file: "+model+"\n")), "action_high: [1]", "action_high: [2]", 1)
	code, stdout, stderr = run(t, "run", "--config", writeConfig(t, dir, "wide.yaml", wide), "--out", filepath.Join(dir, "me"))
	wantUsage(t, code, stdout, stderr, "env.action_high", "fitted with")

	// A file that is no model file smrl could have written: too large (a
	// sparse file of 300 MB), or a W whose entries overflow η.
	big := filepath.Join(dir, "big.json")
	if f, err := os.Create(big); err != nil {
		t.Fatal(err)
	} else {
		f.Truncate(300 << 20)
		f.Close()
	}
	code, stdout, stderr = run(t, "run", "--config", truth, "--agents", "sm", "--init-model", big, "--out", filepath.Join(dir, "big"))
	wantUsage(t, code, stdout, stderr, "init_model", "big.json", "more than the")
	huge := filepath.Join(dir, "huge.json")
	var doc map[string]any
	if err := json.Unmarshal([]byte(read(t, model)), &doc); err != nil {
		t.Fatal(err)
	}
	doc["models"].([]any)[0].(map[string]any)["W"].([]any)[0].([]any)[0] = 1e300
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(huge, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run(t, "run", "--config", truth, "--agents", "sm", "--init-model", huge, "--out", filepath.Join(dir, "huge"))
	wantUsage(t, code, stdout, stderr, "init_model", "W[0][0] = 1e+300")

	// init_model of another model class.
	linear := writeConfig(t, dir, "linear.yaml", strings.Replace(modelsBase, "kind: affine", "kind: linear", 1)+"  w0: [[0.5, 0.2, 0.4], [-0.3, 0.6, 0.2]]\n"+modelsRest+"agents: [sm]\n")
	code, stdout, stderr = run(t, "run", "--config", linear, "--init-model", model, "--out", filepath.Join(dir, "lin"))
	wantUsage(t, code, stdout, stderr, "init_model", "features affine", "features linear")
	if _, err := os.Stat(filepath.Join(dir, "lin")); err == nil {
		t.Errorf("a refused run left %s", filepath.Join(dir, "lin"))
	}
}
