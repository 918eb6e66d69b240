package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/smrl-dev/smrl/internal/testutil"
)

type estimateJSON struct {
	N        int         `json:"n"`
	Lambda   float64     `json:"lambda"`
	Family   string      `json:"family"`
	Features string      `json:"features"`
	Data     string      `json:"data"`
	W0       [][]float64 `json:"w0"`
	CV       []struct {
		Lambda float64  `json:"lambda"`
		Loss   *float64 `json:"loss"`
	} `json:"cv"`
	Estimates []struct {
		Method         string      `json:"method"`
		W              [][]float64 `json:"W"`
		SE             [][]float64 `json:"se"`
		SEKind         string      `json:"se_kind"`
		WaldLo         [][]float64 `json:"wald95_lo"`
		WaldHi         [][]float64 `json:"wald95_hi"`
		FrobeniusError *float64    `json:"frobenius_error"`
		Seconds        float64     `json:"seconds"`
		Weight         string      `json:"weight"`
	} `json:"estimates"`
}

func runJSON(t *testing.T, args ...string) estimateJSON {
	t.Helper()
	code, out, errOut := run(t, append([]string{"estimate", "--format", "json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	var r estimateJSON
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("decoding %s: %v", out, err)
	}
	return r
}

func TestEstimateDefaultConfig(t *testing.T) {
	r := runJSON(t, "--n", "2000")
	if r.N != 2000 || r.Lambda != 1e-4 || r.Family != "custom-sin(freq=4, alpha=1.7)" || r.Features != "linear" {
		t.Errorf("header n=%d lambda=%g family=%q features=%q", r.N, r.Lambda, r.Family, r.Features)
	}
	if len(r.W0) != 1 || len(r.W0[0]) != 2 || r.W0[0][0] != 1 || r.W0[0][1] != 1 {
		t.Errorf("w0 = %v, want [[1 1]]", r.W0)
	}
	if len(r.Estimates) != 3 {
		t.Fatalf("%d estimates, want 3: %+v", len(r.Estimates), r.Estimates)
	}
	for i, m := range []string{"sm", "lds", "mle"} {
		e := r.Estimates[i]
		if e.Method != m || len(e.W) != 1 || len(e.W[0]) != 2 || e.FrobeniusError == nil || e.Seconds < 0 {
			t.Errorf("estimate %d = %+v, want method %s with a 1×2 W and an error", i, e, m)
		}
	}
	sm := r.Estimates[0].W[0]
	if !testutil.AbsWithin(sm[0], 1, 0.25) || !testutil.AbsWithin(sm[1], 1, 0.25) {
		t.Errorf("sm W = %v, want within 0.25 of [1 1]", sm)
	}
	if lds := r.Estimates[1].W[0]; math.Abs(lds[1]) > 0.2 {
		t.Errorf("lds W = %v: its action coefficient should be small (E[s'] barely depends on a)", lds)
	}
	if f := *r.Estimates[0].FrobeniusError; !testutil.AbsWithin(f, math.Hypot(sm[0]-1, sm[1]-1), 1e-12) {
		t.Errorf("sm frobenius_error %g does not match W %v", f, sm)
	}

	// The same seed gives the same data and estimates; the table names
	// every column.
	again := runJSON(t, "--n", "2000")
	if again.Estimates[0].W[0][0] != sm[0] {
		t.Errorf("two runs with the same seed differ: %v vs %v", again.Estimates[0].W, sm)
	}
	code, out, _ := run(t, "estimate", "--n", "300", "--method", "sm,lds")
	if code != ExitOK {
		t.Fatalf("table: exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "method  n") || !strings.Contains(lines[0], "|W−W0|_F") ||
		!strings.HasPrefix(lines[1], "sm ") || !strings.HasPrefix(lines[2], "lds ") {
		t.Errorf("table:\n%s", out)
	}
}

func TestEstimateConfigLayers(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte("lambda: 0.01\nestimate:\n  n: 150\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runJSON(t, "--config", cfg, "--method", "lds")
	if r.N != 150 || r.Lambda != 0.01 {
		t.Errorf("config file: n=%d lambda=%g, want 150, 0.01", r.N, r.Lambda)
	}
	t.Setenv("SMRL_ESTIMATE_N", "120")
	if r := runJSON(t, "--config", cfg, "--method", "lds"); r.N != 120 {
		t.Errorf("SMRL_ESTIMATE_N=120: n=%d", r.N)
	}
	if r := runJSON(t, "--config", cfg, "--method", "lds", "--n", "90", "--lambda", "0.5"); r.N != 90 || r.Lambda != 0.5 {
		t.Errorf("flags: n=%d lambda=%g, want 90, 0.5", r.N, r.Lambda)
	}
	code, out, errOut := run(t, "estimate", "--n", "0")
	wantUsage(t, code, out, errOut, "estimate.n")
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEstimateData(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	b.WriteString("s,a,s_next\n")
	for i := range 200 {
		s := float64(i%21)/10 - 1
		a := float64(1 - 2*(i%2))
		next := 0.3*s + 0.2*a + 0.05*math.Sin(float64(i))
		b.WriteString(ftoa(s) + "," + ftoa(a) + "," + ftoa(next) + "\n")
	}
	p := writeFile(t, dir, "good.csv", b.String())
	r := runJSON(t, "--data", p, "--method", "lds,sm")
	if r.N != 200 || r.Data != p || r.W0 != nil || len(r.Estimates) != 2 || r.Estimates[0].Method != "lds" {
		t.Fatalf("--data: %+v", r)
	}
	for _, e := range r.Estimates {
		if e.FrobeniusError != nil {
			t.Errorf("%s: frobenius_error given for user data", e.Method)
		}
	}
	if lds := r.Estimates[0].W[0]; !testutil.AbsWithin(lds[0], 0.3, 0.02) || !testutil.AbsWithin(lds[1], 0.2, 0.02) {
		t.Errorf("lds W = %v, want ≈ [0.3 0.2]", lds)
	}
	code, out, _ := run(t, "estimate", "--data", p, "--method", "lds")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if f := strings.Fields(lines[len(lines)-1]); code != ExitOK || len(f) != 9 || f[0] != "lds" || f[1] != "200" || f[6] != "-" || f[8] != "-" {
		t.Errorf("table for --data (exit %d):\n%s", code, out)
	}
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func TestEstimateBadData(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		want          string
	}{
		{"missing-column.csv", "s,a\n1,2\n", "line 1"},
		{"width.csv", "s,a,s_next\n1,1,0.5\n1,2\n", "line 3"},
		{"not-number.csv", "s,a,s_next\n1,abc,0.5\n", "line 2"},
		{"nan.csv", "s,a,s_next\n1,1,0.5\n0,-1,NaN\n", "line 3"},
		{"empty.csv", "", "empty.csv"},
		{"dims.csv", "s0,s1,a0,s_next0,s_next1\n1,2,1,3,4\n", "dims.csv"},
		// transitions.csv of smrl run --save-transitions
		{"log-missing.csv", "agent,seed,episode,step,s,a,s_next,reward\nsm,0,1,1,1,1,1,0\n", `line 1: column 8 is "reward", expected "terminal"`},
		{"log-nan.csv", "agent,seed,episode,step,s,a,s_next,reward,terminal\nsm,0,1,1,1,1,NaN,0,0\n", `line 2 column "s_next": NaN`},
		{"log-width.csv", "agent,seed,episode,step,s,a,s_next,reward,terminal\nsm,0,1,1,1,1,0,0\n", "line 2: expected 9 fields, got 8"},
		{"log-seed.csv", "agent,seed,episode,step,s,a,s_next,reward,terminal\nsm,-1,1,1,1,1,0,0,0\n", `line 2 column "seed": -1 is less than 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, tc.name, tc.content)
			code, out, errOut := run(t, "estimate", "--data", p)
			wantUsage(t, code, out, errOut, tc.want, tc.name)
			if strings.Contains(errOut, "--help") {
				t.Errorf("a data error should not point at --help:\n%s", errOut)
			}
		})
	}
	missing := filepath.Join(dir, "missing.csv")
	code, out, errOut := run(t, "estimate", "--data", missing)
	wantUsage(t, code, out, errOut, "missing.csv")

	// --where needs a run's transitions log, and a valid filter.
	plain := writeFile(t, dir, "plain.csv", "s,a,s_next\n1,1,0.5\n")
	code, out, errOut = run(t, "estimate", "--data", plain, "--where", "agent=sm")
	wantUsage(t, code, out, errOut, "plain.csv line 1: a filter")
	log := writeFile(t, dir, "log.csv", "agent,seed,episode,step,s,a,s_next,reward,terminal\nsm,0,1,1,1,1,0.5,0,0\n")
	code, out, errOut = run(t, "estimate", "--data", log, "--where", "seed=x")
	wantUsage(t, code, out, errOut, `--where: filter "seed=x"`)
	code, out, errOut = run(t, "estimate", "--where", "seed=0")
	wantUsage(t, code, out, errOut, "--where selects rows of --data")

	// With per-action features an action outside env.actions is an error
	// naming its line, not a silently ignored row.
	cfg := writeFile(t, dir, "pa.yaml", "env:\n  features: {kind: per-action}\n  w0: [[0.5, 1.5, 0.5, 5]]\n")
	data := writeFile(t, dir, "pa.csv", "s,a,s_next\n0.1,1,0.2\n0.1,2,0.2\n")
	code, out, errOut = run(t, "estimate", "--config", cfg, "--data", data)
	wantUsage(t, code, out, errOut, "pa.csv line 3: action [2] is not one of env.actions")
}

func TestEstimateFlagErrors(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "d.csv", "s,a,s_next\n0.1,1,0.2\n0.3,-1,0.1\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--method", "sm,foo"}, `"foo"`},
		{[]string{"--format", "xml"}, `"xml"`},
		{[]string{"--sweep-n", "100,200"}, "--out"},
		{[]string{"--sweep-n", "100", "--out", filepath.Join(dir, "x.csv"), "--data", data}, "--data"},
		{[]string{"--out", filepath.Join(dir, "x.csv"), "--n", "10"}, "--n"},
		{[]string{"--repeats", "3"}, "--repeats"},
		{[]string{"--data", data, "--n", "10"}, "--n"},
		{[]string{"--lambda", "-1"}, "lambda"},
		{[]string{"--config", filepath.Join(dir, "nope.yaml")}, "nope.yaml"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := run(t, append([]string{"estimate"}, tc.args...)...)
			wantUsage(t, code, out, errOut, tc.want)
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "x.csv")); !os.IsNotExist(err) {
		t.Errorf("a failed sweep left x.csv behind (%v)", err)
	}
}

func TestEstimateSingular(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "same.csv", "s,a,s_next\n0.5,1,0.3\n0.5,1,0.3\n0.5,1,0.3\n0.5,1,0.3\n")
	code, out, errOut := run(t, "estimate", "--data", p, "--lambda", "0", "--method", "lds")
	wantUsage(t, code, out, errOut, "lambda", "lds", "singular")
	code, out, errOut = run(t, "estimate", "--data", p, "--lambda", "0")
	wantUsage(t, code, out, errOut, "--lambda")
}

func TestEstimateSweep(t *testing.T) {
	dir := t.TempDir()
	sweep := func(name string, extra ...string) []byte {
		t.Helper()
		p := filepath.Join(dir, name)
		args := append([]string{"estimate", "--sweep-n", "300,100", "--repeats", "3", "--method", "sm,lds", "--out", p, "--no-plots"}, extra...)
		code, out, errOut := run(t, args...)
		if code != ExitOK {
			t.Fatalf("exit %d; stderr:\n%s", code, errOut)
		}
		if strings.Count(out, "\n") != 1 || !strings.Contains(out, p) || !strings.Contains(out, "sm ") || !strings.Contains(out, "lds ") {
			t.Errorf("summary is not one line naming the file and the methods:\n%s", out)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a := sweep("a.csv")
	// Without --no-plots the error-vs-n figure is written next to the CSV.
	fig := filepath.Join(t.TempDir(), "s.csv")
	if code, out, errOut := run(t, "estimate", "--sweep-n", "300,100", "--repeats", "3", "--method", "sm", "--out", fig); code != ExitOK {
		t.Fatalf("sweep with figure: exit %d: %s", code, errOut)
	} else if png, err := os.ReadFile(strings.TrimSuffix(fig, ".csv") + ".png"); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) || !strings.Contains(out, ".png") {
		t.Errorf("sweep figure missing or not a PNG (%v); stdout %q", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(string(a), "\n"), "\n")
	if lines[0] != "method,n,repeat,frobenius_error,held_out_loglik,relative_efficiency" {
		t.Errorf("header %q", lines[0])
	}
	if len(lines) != 1+2*2*3 {
		t.Fatalf("%d lines, want 13:\n%s", len(lines), a)
	}
	i := 1
	for _, m := range []string{"sm", "lds"} {
		for _, n := range []string{"100", "300"} {
			for _, r := range []string{"0", "1", "2"} {
				f := strings.Split(lines[i], ",")
				if len(f) != 6 || f[0] != m || f[1] != n || f[2] != r {
					t.Errorf("line %d = %q, want %s,%s,%s,…", i+1, lines[i], m, n, r)
				}
				i++
			}
		}
	}
	if b := sweep("b.csv", "--workers", "1"); !bytes.Equal(a, b) {
		t.Errorf("sweeps with all workers and with one differ:\n%s\n---\n%s", a, b)
	}
	if c := sweep("c.csv", "--workers", "3"); !bytes.Equal(a, c) {
		t.Error("sweep with 3 workers differs")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("temporary files left behind: %v", entries)
	}

	// An unwritable destination fails without leaving a file.
	bad := filepath.Join(dir, "no-such-dir", "s.csv")
	code, out, errOut := run(t, "estimate", "--sweep-n", "50", "--repeats", "1", "--method", "lds", "--out", bad)
	if code == ExitOK || out != "" || !strings.Contains(errOut, "no-such-dir") {
		t.Errorf("unwritable --out: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// --plot draws the paper's estimation figure: true and estimated densities.
func TestEstimatePlot(t *testing.T) {
	dir := t.TempDir()
	fig := filepath.Join(dir, "dens.png")
	code, _, errOut := run(t, "estimate", "--n", "500", "--method", "sm,lds", "--plot", fig)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(fig)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil || img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 {
		t.Errorf("figure: %v, bounds %v", err, img.Bounds())
	}
	code, out, errOut := run(t, "estimate", "--plot", filepath.Join(dir, "x.gif"))
	wantUsage(t, code, out, errOut, "--plot")
	box := writeFile(t, dir, "box.yaml", "env:\n  family: {kind: gaussian, dim: 2}\n  features: {kind: affine}\n  w0: [[1, 0, 0, 0], [0, 1, 0, 0]]\n  reward: {centers: [0, 0]}\n")
	code, out, errOut = run(t, "estimate", "-c", box, "--plot", filepath.Join(dir, "y.png"))
	wantUsage(t, code, out, errOut, "1-D state and action")
}

// estimate's flags parse into EstimateOptions through its runF (nothing is
// fitted), and it records which of --n, --repeats and --sweep-n were given
// (the checks of flag combinations need that, not their values).
func TestEstimateFlags(t *testing.T) {
	var o *EstimateOptions
	capture := func(ios *IOStreams) *cobra.Command {
		return NewCmdEstimate(ios, func(eo *EstimateOptions) error { o = eo; return nil })
	}
	for _, tc := range []struct {
		args []string
		want string // fmt of the fields below
	}{
		{nil, "[] table information false  false false false"},
		{[]string{"--method", "sm,lds", "--format", "json", "--mle-se", "sandwich", "--hc1", "--data", "d.csv", "--n", "10"},
			"[sm lds] json sandwich true d.csv true false false"},
		{[]string{"--sweep-n", "10,20", "--repeats", "3", "--out", "s.csv"}, "[] table information false  false true true"},
	} {
		o = nil
		code, _, stderr := runSeam(t, capture, append([]string{"estimate"}, tc.args...)...)
		if code != ExitOK || o == nil {
			t.Fatalf("%v: exit %d, runF called %v: %s", tc.args, code, o != nil, stderr)
		}
		got := fmt.Sprintf("%v %s %s %v %s %v %v %v", o.Methods, o.Format, o.MLESE, o.HC1, o.DataPath, o.NSet, o.RepeatsSet, o.SweepNSet)
		if got != tc.want {
			t.Errorf("%v: parsed %q, want %q", tc.args, got, tc.want)
		}
	}
	o = nil
	code, stdout, stderr := runSeam(t, capture, "estimate", "--n", "many")
	wantUsage(t, code, stdout, stderr, "--n", "smrl estimate --help")
	if o != nil {
		t.Error("runF called after a usage error")
	}
}

// Issue 12, low: estimate takes a config whose agents it does not run; a sweep's
// --out is checked before the sweep; huge --data values are exit 2, also
// with --plot; a misspelt SMRL_* variable is named with the closest key.
func TestEstimateHardening(t *testing.T) {
	dir := t.TempDir()
	ucb := filepath.Join(dir, "ucb.yaml")
	os.WriteFile(ucb, []byte("agents: [sm-ucb]\nlambda: 0\n"), 0o644)
	mustRun(t, "estimate", "--config", ucb, "--n", "200", "--method", "lds")

	start := time.Now()
	code, _, stderr := run(t, "estimate", "--sweep-n", "100000,200000", "--repeats", "50", "--out", filepath.Join(dir, "missing", "s.csv"))
	if code != ExitUsage || !strings.Contains(stderr, "missing does not exist") || time.Since(start) > 5*time.Second {
		t.Errorf("sweep into a missing directory: exit %d after %v, stderr %q", code, time.Since(start), stderr)
	}

	big := filepath.Join(dir, "big.csv")
	os.WriteFile(big, []byte("s,a,s_next\n0.1,1,1e200\n0.2,-1,-1e200\n0.3,1,2e200\n0.1,-1,0.5\n"), 0o644)
	png := filepath.Join(dir, "d.png")
	code, stdout, stderr := run(t, "estimate", "--data", big, "--plot", png)
	wantUsage(t, code, stdout, stderr, big+` line 2 column "s_next"`, "outside [−1024, 1024]")
	if _, err := os.Stat(png); !os.IsNotExist(err) {
		t.Errorf("a refused estimate wrote %s", png)
	}

	t.Setenv("SMRL_EPISODS", "3")
	_, _, stderr = run(t, "estimate", "--n", "100", "--method", "lds")
	if !strings.Contains(stderr, "SMRL_EPISODS is not a config key") || !strings.Contains(stderr, "did you mean SMRL_EPISODES?") {
		t.Errorf("misspelt variable: stderr %q", stderr)
	}
}
