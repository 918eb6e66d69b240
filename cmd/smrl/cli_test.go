package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/spf13/cobra"
)

// run runs smrl with args and returns the exit code, stdout and stderr.
func run(t *testing.T, args ...string) (ExitCode, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// wantUsage checks exit code 2, nothing on stdout and every fragment on
// stderr.
func wantUsage(t *testing.T, code ExitCode, stdout, stderr string, fragments ...string) {
	t.Helper()
	if code != ExitUsage {
		t.Errorf("exit code %d, want %d; stderr:\n%s", code, ExitUsage, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout not empty on error:\n%s", stdout)
	}
	if !strings.HasPrefix(stderr, "smrl: ") {
		t.Errorf("stderr does not start with \"smrl: \":\n%s", stderr)
	}
	for _, f := range fragments {
		if !strings.Contains(stderr, f) {
			t.Errorf("stderr does not mention %q:\n%s", f, stderr)
		}
	}
}

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want ExitCode
	}{
		{nil, ExitOK},
		{errors.New("boom"), ExitFailure},
		{errs.Invalid(errors.New("bad")), ExitUsage},
		{fmt.Errorf("wrapped: %w", errs.Invalid(errors.New("bad"))), ExitUsage},
		{usageErrorf("bad flag"), ExitUsage},
		{fmt.Errorf("run: %w", errs.ErrInterrupted), ExitInterrupted},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func TestPrintError(t *testing.T) {
	var b bytes.Buffer
	printError(&b, "smrl estimate", usageErrorf("unknown method %q", "foo"))
	want := "smrl: unknown method \"foo\"\nRun 'smrl estimate --help' for usage.\n"
	if b.String() != want {
		t.Errorf("usage error printed as %q, want %q", b.String(), want)
	}
	b.Reset()
	printError(&b, "smrl estimate", errs.Invalid(errors.New("x.csv line 3: bad")))
	if want := "smrl: x.csv line 3: bad\n"; b.String() != want {
		t.Errorf("data error printed as %q, want %q (no --help hint)", b.String(), want)
	}
}

func TestVersion(t *testing.T) {
	code, out, errOut := run(t, "version")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want := fmt.Sprintf("smrl %s (%s, %s/%s)", versionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if first, _, _ := strings.Cut(out, "\n"); first != want {
		t.Errorf("version prints %q, want %q", first, want)
	}
	if versionString() == "" {
		t.Error("versionString is empty")
	}
	if rev := vcsRevision(); rev != "" && !strings.Contains(out, rev) {
		t.Errorf("version does not print the revision %s:\n%s", rev, out)
	}
	code, out2, _ := run(t, "--version")
	if code != ExitOK || out2 != out {
		t.Errorf("--version: exit %d, output %q, want %q", code, out2, out)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		fragments []string
	}{
		{[]string{"bogus"}, []string{`unknown command "bogus"`, "Run 'smrl --help' for usage."}},
		{[]string{"--bogus"}, []string{"unknown flag: --bogus", "Run 'smrl --help' for usage."}},
		{[]string{"version", "extra"}, []string{`"extra"`, "Run 'smrl version --help' for usage."}},
		{[]string{"estimate", "--bogus"}, []string{"unknown flag: --bogus", "Run 'smrl estimate --help' for usage."}},
		{[]string{"estimate", "--n", "abc"}, []string{`"abc"`, "--n", "smrl estimate --help"}},
		{[]string{"estimate", "stray"}, []string{`"stray"`}},
		{[]string{"plot", "--in", ".", "--smooth", "-1"}, []string{"--smooth: want a window of 0 to 10000 episodes, got -1"}},
		{[]string{"plot", "--sweep", "x.csv", "--smooth", "3"}, []string{"--smooth and --seed-lines apply to the figures of a results directory"}},
		{[]string{"run", "--save-transitions=zip"}, []string{`--save-transitions: want csv or gz, got "zip"`}},
		{[]string{"run", "--save-transitions", "--resume"}, []string{"--save-transitions cannot be combined with --resume"}},
		{[]string{"estimate", "--model", "m.json"}, []string{"--model evaluates the models on --data FILE"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := run(t, tc.args...)
			wantUsage(t, code, out, errOut, tc.fragments...)
			if n := strings.Count(errOut, "smrl: "); n != 1 {
				t.Errorf("error printed %d times:\n%s", n, errOut)
			}
		})
	}
}

func TestHelpAndCompletion(t *testing.T) {
	for _, args := range [][]string{nil, {"--help"}, {"help", "estimate"}, {"estimate", "--help"}, {"completion", "bash"}} {
		code, out, errOut := run(t, args...)
		if code != ExitOK || out == "" || errOut != "" {
			t.Errorf("smrl %v: exit %d, %d bytes of stdout, stderr %q", args, code, len(out), errOut)
		}
	}
	_, out, _ := run(t, "--help")
	for _, want := range []string{"estimate", "version", "completion", "score matching"} {
		if !strings.Contains(out, want) {
			t.Errorf("smrl --help does not mention %q", want)
		}
	}
}

// The theory β needs α₁ > 0: on the paper's custom-sin family (α₁ = 0) it
// is a config error with exit 2 that says why and what to use instead, and
// nothing is written.
func TestTheoryBetaOnCustomSinIsUsageError(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte("agents: [sm, sm-ucb, oracle]\nconfidence:\n  beta: theory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := run(t, "run", "--config", cfg, "--out", out, "-q")
	wantUsage(t, code, stdout, stderr, "c.yaml", "confidence.alpha1", "α₁ = inf C(s') = 0", "custom-sin", "confidence.beta: practical")
	if strings.Count(stderr, "\n") != 1 {
		t.Errorf("want one error line, got:\n%s", stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output directory created: %v", err)
	}
}

// runSeam runs smrl with args as run does, except that the command named
// like newCmd's is replaced by newCmd's, built on the same streams: a
// command made with a runF parses its flags and runs nothing.
func runSeam(t *testing.T, newCmd func(*IOStreams) *cobra.Command, args ...string) (ExitCode, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	ios := &IOStreams{Out: &out, ErrOut: &errOut}
	root, sub := newRootCmd(ios), newCmd(ios)
	for _, c := range root.Commands() {
		if c.Name() == sub.Name() {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(sub)
	code := execute(context.Background(), root, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

const quickConfig = "../../configs/quick.yaml"

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := run(t, args...)
	if code != ExitOK {
		t.Fatalf("smrl %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot maps every file under dir to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	if !maps.Equal(before, after) { // formatting the maps to compare them cost more than the commands
		t.Errorf("%s changed the directory:\nbefore %v\nafter  %v", what, before, after)
	}
}

// A panic anywhere is an internal error: exit 3, one line, no stack dump.
func TestPanicIsInternalError(t *testing.T) {
	root := newRootCmd(&IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	root.AddCommand(&cobra.Command{Use: "boom", RunE: func(*cobra.Command, []string) error {
		var s []int
		_ = s[len(os.Args)] // index out of range
		return nil
	}})
	var out, errOut bytes.Buffer
	code := execute(context.Background(), root, []string{"boom"}, &out, &errOut)
	if code != ExitInternal {
		t.Errorf("exit %d, want %d", code, ExitInternal)
	}
	msg := errOut.String()
	if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "smrl: internal error") || !strings.Contains(msg, "index out of range") {
		t.Errorf("stderr %q: want one line naming the internal error", msg)
	}
}

// Issue 12, low: unknown help topics and completion shells are usage errors; every
// error is one line (several config problems, the λ hint); no doubled
// "interrupted:".
func TestUsageAndOneLineErrors(t *testing.T) {
	code, stdout, stderr := run(t, "completion", "tcsh")
	wantUsage(t, code, stdout, stderr, "tcsh")
	code, stdout, stderr = run(t, "help", "bogus")
	wantUsage(t, code, stdout, stderr, "bogus")

	dir := t.TempDir()
	two := filepath.Join(dir, "two.yaml")
	os.WriteFile(two, []byte("seeds: 0\nepisodes: 0\n"), 0o644)
	code, _, stderr = run(t, "run", "--config", two)
	if code != ExitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "seeds") || !strings.Contains(stderr, "episodes") {
		t.Errorf("two problems: exit %d, stderr %q: want both on one line", code, stderr)
	}
	same := filepath.Join(dir, "same.csv")
	os.WriteFile(same, []byte("s,a,s_next\n0.5,1,0.2\n0.5,1,0.2\n0.5,1,0.2\n"), 0o644)
	code, _, stderr = run(t, "estimate", "--data", same, "--lambda", "0", "--method", "sm")
	if code != ExitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "; hint: λ is set by --lambda") {
		t.Errorf("λ hint: exit %d, stderr %q: want one line with the hint", code, stderr)
	}
	if got := oneLine("a\n\n  b\n"); got != "a; b" {
		t.Errorf("oneLine = %q", got)
	}
}
