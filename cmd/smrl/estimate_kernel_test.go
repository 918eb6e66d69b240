package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/stats"
)

// kernelConfig is a config of the kernel family bound to data (no env.w0,
// no centre_points) on Fourier features of s, with extra YAML lines.
func kernelConfig(t *testing.T, dir, name string, dim int, extra string) string {
	phi := `["1", "cos(pi*s0/4)", "sin(pi*s0/4)", "cos(pi*s0/2)", "sin(pi*s0/2)"]`
	return writeFile(t, dir, name, fmt.Sprintf("env:\n  kind: expfam\n  family:\n    kind: kernel\n    dim: %d\n    centres: 10\n    bandwidth: 0.5\n%s  features:\n    kind: expression\n    phi: %s\nlambda: 0.1\n", dim, extra, phi))
}

// bimodalCSV writes n transitions of the bimodal law of
// docs/kernel-families.md (s ~ U(−2, 2); s' a mixture of N(s/2 ∓ 1, 0.35²)
// of weight 1/(1 + e^{−2s})) and returns the path and the mean true log
// density of its next states. With dim 2, s'_1 | s, s'_0 ~
// N(0.6 s'_0 − 0.3 s, 0.5²) is added and the state is (s, 0).
func bimodalCSV(t *testing.T, dir, name string, n, dim int, seed uint64) (string, float64) {
	rng := rand.New(rand.NewPCG(seed, 36))
	var b bytes.Buffer
	if dim == 1 {
		b.WriteString("s,a,s_next\n")
	} else {
		b.WriteString("s0,s1,a0,s_next0,s_next1\n")
	}
	lnorm := func(x, mu, sd float64) float64 {
		r := (x - mu) / sd
		return -0.5*r*r - math.Log(sd*math.Sqrt(2*math.Pi))
	}
	var truth float64
	for range n {
		s := 4*rng.Float64() - 2
		w := 1 / (1 + math.Exp(-2*s))
		mu := s/2 + 1
		if rng.Float64() < w {
			mu = s/2 - 1
		}
		x := mu + 0.35*rng.NormFloat64()
		truth += math.Log(w*math.Exp(lnorm(x, s/2-1, 0.35)) + (1-w)*math.Exp(lnorm(x, s/2+1, 0.35)))
		if dim == 1 {
			fmt.Fprintf(&b, "%v,1,%v\n", s, x)
			continue
		}
		y := 0.6*x - 0.3*s + 0.5*rng.NormFloat64()
		truth += lnorm(y, 0.6*x-0.3*s, 0.5)
		fmt.Fprintf(&b, "%v,0,1,%v,%v\n", s, x, y)
	}
	return writeFile(t, dir, name, b.String()), truth / float64(n)
}

type kernelEval struct {
	Method   string   `json:"method"`
	N        int      `json:"n"`
	SMLoss   float64  `json:"sm_loss"`
	LogLik   float64  `json:"log_likelihood"`
	LogLikSE *float64 `json:"log_likelihood_se"`
}

// evalKernel runs smrl estimate --model model --data data --format json.
func evalKernel(t *testing.T, model, data string) kernelEval {
	t.Helper()
	code, out, errOut := run(t, "estimate", "--model", model, "--data", data, "--format", "json")
	if code != ExitOK {
		t.Fatalf("estimate --model: exit %d: %s", code, errOut)
	}
	var evals []kernelEval
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&evals); err != nil || len(evals) != 1 {
		t.Fatalf("decoding %s: %v", out, err)
	}
	return evals[0]
}

// TestEstimateKernelData: smrl estimate --data with the kernel family
// writes a model (centres included) that is byte-identical with 1 and 2
// workers, and that --model scores on held-out data near the true
// density (within 0.35 nats per transition at this small size), with a
// log_likelihood_se; the autoregressive graph in d = 2 likewise.
func TestEstimateKernelData(t *testing.T) {
	dir := t.TempDir()
	cfg := kernelConfig(t, dir, "k.yaml", 1, "")
	train, _ := bimodalCSV(t, dir, "train.csv", 400, 1, 1)
	test, truth := bimodalCSV(t, dir, "test.csv", 150, 1, 2)
	var models [2][]byte
	for i, w := range []string{"1", "2"} {
		path := filepath.Join(dir, "model"+w+".json")
		code, _, errOut := run(t, "estimate", "--config", cfg, "--data", train, "--save-model", path, "--workers", w, "--format", "json")
		if code != ExitOK {
			t.Fatalf("estimate --data: exit %d: %s", code, errOut)
		}
		var err error
		if models[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	// The files differ in their config's workers key only.
	var mf [2]struct{ Models json.RawMessage }
	for i := range mf {
		if err := json.Unmarshal(models[i], &mf[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(mf[0].Models, mf[1].Models) {
		t.Error("the fitted models differ between --workers 1 and 2")
	}
	if !bytes.Contains(models[0], []byte(`"centres"`)) || !bytes.Contains(models[0], []byte(`"base_scale"`)) {
		t.Errorf("model.json holds no kernel centres or base scale:\n%.400s", models[0])
	}
	e := evalKernel(t, filepath.Join(dir, "model1.json"), test)
	t.Logf("held-out log-likelihood %.4f ± %.4f, truth %.4f, SM loss %.4f", e.LogLik, *e.LogLikSE, truth, e.SMLoss)
	if e.LogLikSE == nil || !(*e.LogLikSE > 0) || math.Abs(e.LogLik-truth) > 0.35 || e.N != 150 {
		t.Errorf("held-out log-likelihood %.4f (se %v, n %d), truth %.4f", e.LogLik, e.LogLikSE, e.N, truth)
	}

	cfg2 := kernelConfig(t, dir, "k2.yaml", 2, "    graph: autoregressive\n")
	train2, _ := bimodalCSV(t, dir, "train2.csv", 400, 2, 3)
	test2, truth2 := bimodalCSV(t, dir, "test2.csv", 100, 2, 4)
	m2 := filepath.Join(dir, "model2d.json")
	if code, _, errOut := run(t, "estimate", "--config", cfg2, "--data", train2, "--save-model", m2, "--format", "json"); code != ExitOK {
		t.Fatalf("autoregressive estimate --data: exit %d: %s", code, errOut)
	}
	e2 := evalKernel(t, m2, test2)
	t.Logf("d = 2 autoregressive: held-out log-likelihood %.4f ± %.4f, truth %.4f", e2.LogLik, *e2.LogLikSE, truth2)
	if math.Abs(e2.LogLik-truth2) > 0.5 {
		t.Errorf("d = 2 autoregressive: held-out log-likelihood %.4f, truth %.4f", e2.LogLik, truth2)
	}
}

// TestEstimateKernelJoint2D: the joint graph in d = 2 is scored with an
// importance-sampled log Z (a log_likelihood_se that includes its Monte
// Carlo error); a saved model whose tilt puts all the mass in one narrow
// bump (η_0 = 400 at a centre) degenerates the importance weights, and
// --model refuses it naming the transition and the effective sample size.
func TestEstimateKernelJoint2D(t *testing.T) {
	dir := t.TempDir()
	cfg := kernelConfig(t, dir, "j.yaml", 2, "    graph: joint\n")
	train, _ := bimodalCSV(t, dir, "train.csv", 300, 2, 5)
	test, truth := bimodalCSV(t, dir, "test.csv", 20, 2, 6)
	model := filepath.Join(dir, "joint.json")
	if code, _, errOut := run(t, "estimate", "--config", cfg, "--data", train, "--save-model", model, "--format", "json"); code != ExitOK {
		t.Fatalf("joint estimate --data: exit %d: %s", code, errOut)
	}
	e := evalKernel(t, model, test)
	t.Logf("d = 2 joint: held-out log-likelihood %.4f ± %.4f, truth %.4f", e.LogLik, *e.LogLikSE, truth)
	if math.Abs(e.LogLik-truth) > 1 {
		t.Errorf("d = 2 joint: held-out log-likelihood %.4f, truth %.4f", e.LogLik, truth)
	}
	raw, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	var mf map[string]any
	if err := json.Unmarshal(raw, &mf); err != nil {
		t.Fatal(err)
	}
	w := mf["models"].([]any)[0].(map[string]any)["kernel"].(map[string]any)["coords"].([]any)[0].(map[string]any)["W"].([]any)
	w[0].([]any)[0] = 400.0 // phi_0 = 1: η_0 = 400 + …
	bad, _ := json.MarshalIndent(mf, "", "  ")
	badPath := writeFile(t, dir, "degenerate.json", string(bad))
	code, out, errOut := run(t, "estimate", "--model", badPath, "--data", test)
	wantUsage(t, code, out, errOut, "transition 0", "effective sample size", "bound: an effective sample size of 100 of 2000 draws")
}

// TestEstimateKernelBadInput: the kernel family's bad settings and data
// are exit 2 naming the key or the number, and leave no model file.
func TestEstimateKernelBadInput(t *testing.T) {
	dir := t.TempDir()
	train, _ := bimodalCSV(t, dir, "train.csv", 30, 1, 1)
	dup := writeFile(t, dir, "dup.csv", "s,a,s_next\n0.1,1,0.5\n0.2,1,0.5\n0.3,1,0.5\n0.4,1,-0.5\n0.5,1,-0.5\n0.6,1,-0.5\n")
	tied := writeFile(t, dir, "tied.csv", "s,a,s_next\n0.1,1,0.5\n0.2,1,0.5\n0.3,1,0.5\n0.4,1,0.5\n0.5,1,0.5\n0.6,1,-0.5\n0.7,1,-0.5\n")
	for _, tc := range []struct {
		name, extra, data string
		args              []string
		want              []string
	}{
		{"centres above n", "", dup, nil, []string{"env.family.centres", "10 centres but only 6 transitions"}},
		{"bandwidth 0", "", train, []string{"--set", "env.family.bandwidth=0"}, []string{"env.family.bandwidth", `"0"`}},
		{"bandwidth NaN", "", train, []string{"--set", "env.family.bandwidth=NaN"}, []string{"env.family.bandwidth", "NaN"}},
		{"bandwidth negative in cv.bandwidths", "", train, []string{"--set", "env.family.bandwidth=cv", "--set", "cv.bandwidths=[0.5,-1]"}, []string{"cv.bandwidths", "-1"}},
		{"base scale negative", "", train, []string{"--set", "env.family.base_scale=-1"}, []string{"env.family.base_scale", "-1"}},
		{"fewer distinct next states than centres", "", dup, []string{"--set", "env.family.centres=3"}, []string{"env.family.centres", "only 2 distinct values", "3 centres"}},
		{"bandwidth 1e-300", "", train, []string{"--set", "env.family.bandwidth=1e-300"}, []string{"env.family.bandwidth", "[1e-6, 1e6]"}},
		{"bandwidth 1e308", "", train, []string{"--set", "env.family.bandwidth=1e308"}, []string{"env.family.bandwidth", "[1e-6, 1e6]"}},
		{"cv.bandwidths 1e-300", "", train, []string{"--set", "env.family.bandwidth=cv", "--set", "cv.bandwidths=[1e-300]"}, []string{"cv.bandwidths", "[1e-6, 1e6]"}},
		{"base scale 1e-100", "", train, []string{"--set", "env.family.base_scale=1e-100"}, []string{"env.family.base_scale", "[1e-6, 1024]"}},
		{"base scale 1e308", "", train, []string{"--set", "env.family.base_scale=1e308"}, []string{"env.family.base_scale", "[1e-6, 1024]"}},
		{"base scale below the data", "", train, []string{"--set", "env.family.base_scale=1e-4"}, []string{"env.family.base_scale", "below the largest |next state|"}},
		{"bandwidth below the data", "", train, []string{"--set", "env.family.bandwidth=1e-5"}, []string{"env.family.bandwidth", "below the largest |next state|"}},
		{"bandwidth above the data", "", train, []string{"--set", "env.family.bandwidth=1e5"}, []string{"env.family.bandwidth", "same constant"}},
		{"cv on tied data", "", tied, []string{"--set", "env.family.bandwidth=cv", "--set", "env.family.centres=2"}, []string{"env.family.bandwidth", "median distance of the next states, which is 0", "cv.bandwidths"}},
		{"graph", "", train, []string{"--set", "env.family.graph=tree"}, []string{"env.family.graph", "tree"}},
		{"lambda 0", "", train, []string{"--lambda", "0"}, []string{"lambda", "must be a finite number > 0, got 0"}},
		{"method lds", "", train, []string{"--method", "sm,lds"}, []string{"--method lds", "sm only"}},
		{"w0 without centre points", "", train, []string{"--set", "env.w0=[[1,1,1,1,1]]"}, []string{"env.family.centre_points"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := kernelConfig(t, dir, "k.yaml", 1, tc.extra)
			model := filepath.Join(dir, "m.json")
			args := append([]string{"estimate", "--config", cfg, "--data", tc.data, "--save-model", model}, tc.args...)
			code, out, errOut := run(t, args...)
			wantUsage(t, code, out, errOut, tc.want...)
			if _, err := os.Stat(model); err == nil {
				t.Error("a model file was written")
			}
		})
	}
}

// TestEstimateTrueKernelFamily: data drawn from a true kernel family
// (env.family.centre_points, a fixed bandwidth and base scale, env.w0;
// d = 1, drawn exactly by the inverse CDF of its quadrature) are fitted
// by score matching within the model class: every entry of Ŵ within 4
// sandwich standard errors of W0.
func TestEstimateTrueKernelFamily(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "true.yaml", "env:\n  kind: expfam\n  family:\n    kind: kernel\n    dim: 1\n    bandwidth: 0.5\n    base_scale: 1.5\n    graph: joint\n    centre_points: [[-1], [0], [1]]\n  w0: [[1, 0.5], [-1, 0], [0.5, 0.5]]\nestimate:\n  n: 1000\n")
	r := runJSON(t, "--config", cfg, "--method", "sm")
	e := r.Estimates[0]
	if e.SE == nil || e.FrobeniusError == nil {
		t.Fatalf("no standard errors or error: %+v", e)
	}
	for i, row := range e.W {
		for j, w := range row {
			if z := (w - r.W0[i][j]) / e.SE[i][j]; math.Abs(z) > 4 {
				t.Errorf("Ŵ[%d][%d] = %.4f, W0 %.4f: %.1f standard errors away", i, j, w, r.W0[i][j], z)
			}
		}
	}
	t.Logf("|Ŵ − W0|_F = %.4f, family %s", *e.FrobeniusError, r.Family)
}

// TestSampleKernelModel: smrl sample --model draws from a saved kernel
// model (joint, d = 1) by the inverse CDF of its quadrature: its draws at
// s = 0.5 pass a Kolmogorov–Smirnov test (400 draws, 1% critical value)
// against the CDF of the family rebuilt from model.json at η = W·phi(0.5)
// with phi written out here; an autoregressive model of d = 2 is refused.
func TestSampleKernelModel(t *testing.T) {
	dir := t.TempDir()
	cfg := kernelConfig(t, dir, "k.yaml", 1, "")
	train, _ := bimodalCSV(t, dir, "train.csv", 300, 1, 1)
	model := filepath.Join(dir, "m.json")
	if code, _, errOut := run(t, "estimate", "--config", cfg, "--data", train, "--save-model", model, "-q"); code != ExitOK {
		t.Fatalf("estimate: exit %d: %s", code, errOut)
	}
	code, out, errOut := run(t, "sample", "--model", model, "--state", "0.5", "--action", "1", "--n", "400")
	if code != ExitOK {
		t.Fatalf("sample: exit %d: %s", code, errOut)
	}
	var xs []float64
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		var x float64
		if _, err := fmt.Sscan(line, &x); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		xs = append(xs, x)
	}
	raw, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	var mf struct {
		Models []struct {
			Kernel estimator.KernelGraphModel `json:"kernel"`
		} `json:"models"`
	}
	if err := json.Unmarshal(raw, &mf); err != nil {
		t.Fatal(err)
	}
	g, err := mf.Models[0].Kernel.Fit(1, 5)
	if err != nil {
		t.Fatal(err)
	}
	f := g.Coords[0]
	s := 0.5
	phi := []float64{1, math.Cos(math.Pi * s / 4), math.Sin(math.Pi * s / 4), math.Cos(math.Pi * s / 2), math.Sin(math.Pi * s / 2)}
	eta := make([]float64, f.Fam.M)
	for k := range eta {
		for j, p := range phi {
			eta[k] += f.W[k*5+j] * p
		}
	}
	cdf, err := f.Fam.LineCDF(eta)
	if err != nil {
		t.Fatal(err)
	}
	if d, crit := stats.KS(xs, func(x float64) float64 { return cdf.At(x / f.Fam.Base) }), 1.63/math.Sqrt(float64(len(xs))); len(xs) != 400 || d > crit {
		t.Errorf("%d draws: KS %.4f against the model's CDF, above %.4f", len(xs), d, crit)
	}

	cfg2 := kernelConfig(t, dir, "k2.yaml", 2, "")
	train2, _ := bimodalCSV(t, dir, "train2.csv", 200, 2, 3)
	model2 := filepath.Join(dir, "m2.json")
	if code, _, errOut := run(t, "estimate", "--config", cfg2, "--data", train2, "--save-model", model2, "-q"); code != ExitOK {
		t.Fatalf("estimate d = 2: exit %d: %s", code, errOut)
	}
	code, out, errOut = run(t, "sample", "--model", model2, "--state", "0.5,0", "--action", "1", "--n", "10")
	wantUsage(t, code, out, errOut, "autoregressive kernel graph of d = 2")
}

// TestEstimateKernelPlot: --plot of the kernel family bound to data draws
// its figure for d = 1 and for the autoregressive graph of d = 2 (the
// density of s'_0); the joint graph of d = 2 is exit 2 naming it, before
// any fit, and writes no figure.
func TestEstimateKernelPlot(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		dim   int
		extra string
		ok    bool
	}{{"d1", 1, "", true}, {"ar2", 2, "", true}, {"joint2", 2, "    graph: joint\n", false}} {
		cfg := kernelConfig(t, dir, tc.name+".yaml", tc.dim, tc.extra)
		train, _ := bimodalCSV(t, dir, tc.name+".csv", 200, tc.dim, 7)
		png := filepath.Join(dir, tc.name+".png")
		code, out, errOut := run(t, "estimate", "--config", cfg, "--data", train, "--plot", png)
		if !tc.ok {
			wantUsage(t, code, out, errOut, "--plot", "joint kernel graph of d = 2")
			if _, err := os.Stat(png); !os.IsNotExist(err) {
				t.Errorf("%s: %s written after the refusal", tc.name, png)
			}
			continue
		}
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		b, err := os.ReadFile(png)
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s: %s is no PNG (err %v)", tc.name, png, err)
		}
	}
}

// TestEstimateKernelCVNullJSON: a cross-validation candidate whose
// conjugate gradients do not converge (λ = 1e-200 with σ = 0.05 on 60
// transitions: λ is below the rounding of V's entries, so V + λI is
// singular in floating point; λ = 1e-12, used before, is now solved by
// KernelSM's block preconditioner) scores +Inf; --format json writes it
// as null and exits 0, with the model file written.
func TestEstimateKernelCVNullJSON(t *testing.T) {
	dir := t.TempDir()
	cfg := kernelConfig(t, dir, "k.yaml", 1, "")
	train, _ := bimodalCSV(t, dir, "train.csv", 60, 1, 1)
	model := filepath.Join(dir, "m.json")
	code, out, errOut := run(t, "estimate", "--config", cfg, "--data", train, "--set", "lambda=cv", "--set", "env.family.bandwidth=cv",
		"--set", "cv.grid=[1e-200,1]", "--set", "cv.bandwidths=[0.05,0.8]", "--set", "env.family.centres=20", "--format", "json", "--save-model", model)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Estimates []struct {
			KernelFits []struct {
				CV [][]*float64 `json:"cv_loss"`
			} `json:"kernel_fits"`
		} `json:"estimates"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	cv := r.Estimates[0].KernelFits[0].CV
	if len(cv) != 2 || len(cv[0]) != 2 || cv[0][0] != nil || cv[1][1] == nil {
		t.Errorf("cv_loss %v: want null at (0.05, 1e-200) and a number at (0.8, 1)", cv)
	}
	if _, err := os.Stat(model); err != nil {
		t.Errorf("no model file: %v", err)
	}
}

// TestEstimateKernelDistinctCentres: the centres are drawn among the
// distinct next states, so 2 centres on data of two values repeated fit
// for every seed (a subsample of rows would draw two equal ones for some).
func TestEstimateKernelDistinctCentres(t *testing.T) {
	dir := t.TempDir()
	cfg := kernelConfig(t, dir, "k.yaml", 1, "")
	dup := writeFile(t, dir, "dup.csv", "s,a,s_next\n0.1,1,0.5\n0.2,1,0.5\n0.3,1,0.5\n0.4,1,-0.5\n0.5,1,-0.5\n0.6,1,-0.5\n")
	for seed := range 6 {
		code, _, errOut := run(t, "estimate", "--config", cfg, "--data", dup, "--set", "env.family.centres=2", "--set", fmt.Sprintf("seed=%d", seed), "-q")
		if code != ExitOK {
			t.Errorf("seed %d: exit %d: %s", seed, code, errOut)
		}
	}
}

// TestEstimateKernelDegenerateWarning: a bandwidth far above the spread
// of the next states (200, against |s'| ≤ 2.4 here) makes the statistics
// numerically constant: the fit is the bare base, and a warning says so
// on stderr (none at bandwidth 0.5).
func TestEstimateKernelDegenerateWarning(t *testing.T) {
	dir := t.TempDir()
	cfg := kernelConfig(t, dir, "k.yaml", 1, "")
	train, _ := bimodalCSV(t, dir, "train.csv", 100, 1, 1)
	for _, tc := range []struct {
		bw   string
		warn bool
	}{{"200", true}, {"0.5", false}} {
		code, _, errOut := run(t, "estimate", "--config", cfg, "--data", train, "--set", "env.family.bandwidth="+tc.bw, "-q")
		if code != ExitOK {
			t.Fatalf("bandwidth %s: exit %d: %s", tc.bw, code, errOut)
		}
		if got := strings.Contains(errOut, "warning: the kernel statistics of bandwidth "+tc.bw+" are numerically constant"); got != tc.warn {
			t.Errorf("bandwidth %s: warning %v, want %v; stderr:\n%s", tc.bw, got, tc.warn, errOut)
		}
	}
}

// TestSampleKernelModelRefused: a kernel model file edited to a base
// scale of 1e-6 (its centres then lie a million base scales out), or to a
// W entry of 1e50 (a tilt too large for float64), is refused by smrl
// sample with exit 2 naming base_scale or η, not a panic.
func TestSampleKernelModelRefused(t *testing.T) {
	dir := t.TempDir()
	cfg := kernelConfig(t, dir, "k.yaml", 1, "    graph: joint\n")
	train, _ := bimodalCSV(t, dir, "train.csv", 60, 1, 1)
	model := filepath.Join(dir, "m.json")
	if code, _, errOut := run(t, "estimate", "--config", cfg, "--data", train, "--save-model", model, "-q"); code != ExitOK {
		t.Fatalf("estimate: exit %d: %s", code, errOut)
	}
	raw, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		edit       func(c map[string]any)
	}{
		{"base scale 1e-6", "base_scale", func(c map[string]any) { c["base_scale"] = 1e-6 }},
		{"W entry 1e50", "η = W·phi(s, a)", func(c map[string]any) { c["W"].([]any)[0].([]any)[0] = 1e50 }},
		{"centre 1e300", "centres", func(c map[string]any) { c["centres"].([]any)[0].([]any)[0] = 1e300 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mf map[string]any
			if err := json.Unmarshal(raw, &mf); err != nil {
				t.Fatal(err)
			}
			tc.edit(mf["models"].([]any)[0].(map[string]any)["kernel"].(map[string]any)["coords"].([]any)[0].(map[string]any))
			b, _ := json.Marshal(mf)
			bad := writeFile(t, dir, "bad.json", string(b))
			code, out, errOut := run(t, "sample", "--model", bad, "--state", "0.5", "--action", "1", "--n", "3")
			wantUsage(t, code, out, errOut, tc.want)
			// env.kind: model plays the same file as the true transition.
			me := writeFile(t, dir, "me.yaml", "seeds: 1\nepisodes: 1\nagents: [random]\nenv:\n  kind: model\n  model:\n    file: "+bad+"\n    method: sm\n  horizon: 3\n")
			code, _, errOut = run(t, "run", "--config", me, "--out", filepath.Join(t.TempDir(), "out"), "-q")
			if code != ExitUsage || !strings.Contains(errOut, tc.want) {
				t.Errorf("env.kind model: exit %d, want %d naming %q; stderr:\n%s", code, ExitUsage, tc.want, errOut)
			}
		})
	}
}

// At λ = 1e-40 the block preconditioner's factor is numerically singular:
// CG goes on with Jacobi alone and stops at MaxIter with a finite
// residual, exit 2 naming lambda (it used to spend its whole budget on a
// NaN residual).
func TestEstimateKernelTinyLambda(t *testing.T) {
	code, _, errOut := run(t, "estimate", "--config", "../../examples/kernel/bimodal.yaml", "--data", "../../examples/kernel/bimodal-train.csv",
		"--set", "lambda=1e-40", "--set", "cv.bandwidths=[0.8]")
	if code != ExitUsage || !strings.Contains(errOut, "lambda:") || !strings.Contains(errOut, "relative residual") || strings.Contains(errOut, "NaN") || strings.Contains(errOut, "Inf") {
		t.Errorf("exit %d, %s; want exit 2 naming lambda at a finite residual", code, errOut)
	}
}
