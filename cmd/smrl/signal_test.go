package main

import (
	"bytes"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/smrl-dev/smrl/internal/metrics"
)

// mainResult is what a background Main returned (startMain).
type mainResult struct {
	code           ExitCode
	stdout, stderr string
}

// startMain runs Main(args) on a goroutine and waits up to 20 s until
// ready(out) holds (out: the run's results directory), failing the test
// otherwise; the channel receives Main's result.
func startMain(t *testing.T, args []string, out string, ready func(out string) bool) <-chan mainResult {
	t.Helper()
	done := make(chan mainResult, 1)
	go func() {
		var o, e bytes.Buffer
		code := Main(args, &o, &e)
		done <- mainResult{code, o.String(), e.String()}
	}()
	for deadline := time.Now().Add(20 * time.Second); !ready(out); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the run did not reach its state within 20 s")
		}
	}
	return done
}

// started holds once the run in out has written its metadata.json.
func started(out string) bool {
	_, err := os.Stat(filepath.Join(out, "metadata.json"))
	return err == nil
}

// SIGINT during a run: exit 130, the completed trials are kept, stderr says
// how to resume, and --resume finishes the run.
func TestSIGINTExit130AndResume(t *testing.T) {
	// The test's own registration keeps a SIGINT that reaches the process
	// after Main returned (and stopped its handler) from ending the test
	// binary.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT)
	defer signal.Stop(sigs)
	// 8 seeds: 24 trials of about 10 ms on one worker, 22 of them left when
	// the signal comes after the second (40 seeds did the same work 5
	// times). On a machine so loaded that the run ended before the signal
	// came, again with 40.
	for _, seeds := range []int{8, 40} {
		if interruptAndResume(t, seeds) {
			return
		}
		t.Logf("the run of %d seeds ended before the signal reached it; again with more", seeds)
	}
	t.Fatal("every run ended before the signal reached it")
}

// interruptAndResume runs the quick config on seeds seeds, interrupts it
// with SIGINT after two trials and checks the exit, the hint and the
// resume; it returns false, having checked nothing, when the run completed
// before the signal reached it.
func interruptAndResume(t *testing.T, seeds int) bool {
	out := filepath.Join(t.TempDir(), "res")
	args := []string{"run", "--config", "../../configs/quick.yaml", "--out", out, "--no-plots", "--workers", "1", "--seeds", strconv.Itoa(seeds), "--episodes", "6"}
	done := startMain(t, args, out, func(out string) bool { // two trials journaled
		b, _ := os.ReadFile(filepath.Join(out, "journal.jsonl"))
		return bytes.Count(b, []byte("\n")) >= 2
	})
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.code == ExitOK {
		return false
	}
	if r.code != ExitInterrupted {
		t.Fatalf("exit %d, want 130; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "--resume") || !strings.Contains(r.stderr, "interrupted") {
		t.Errorf("stderr does not say how to resume:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "episodes.csv")); err == nil {
		t.Error("interrupted run wrote episodes.csv")
	}
	code, _, stderr := run(t, append(args, "--resume", "--quiet")...)
	if code != ExitOK {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "episodes.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 1+3*seeds*6 {
		t.Errorf("episodes.csv has %d lines after resume, want %d", n, 1+3*seeds*6)
	}
	return true
}

// The resume hint, pasted into a shell, gives back the run's arguments with
// --resume: a backtick or a dollar in an argument is quoted, not run.
func TestResumeHintQuotesForTheShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to read the hint back")
	}
	args := []string{"run", "--out", "a`b`c", "--set", "name=$HOME", "--config", "it's.yaml"}
	hint := resumeHint(args, false)
	out, err := exec.Command(sh, "-c", `eval "set -- $1"; for a; do printf '%s\0' "$a"; done`, "sh", hint).Output()
	if err != nil {
		t.Fatalf("sh reading %q: %v", hint, err)
	}
	want := append(append([]string{"smrl"}, args...), "--resume")
	if got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hint %q reads as %q, want %q", hint, got, want)
	}
}

// startHelper starts smrl run with args in a child process (TestHelperSmrl)
// and waits until its trials have started (metadata.json in out).
func startHelper(t *testing.T, out string, args []string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSmrl$")
	cmd.Env = append(os.Environ(), "SMRL_TEST_ARGS="+strings.Join(args, "\n"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(filepath.Join(out, "metadata.json")); err == nil {
			return cmd, &stderr
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the run did not start")
		}
	}
}

// SIGHUP (the terminal or SSH session closed) stops a run as SIGINT does:
// exit 130 with the resume hint; it killed smrl with 129 and no message
// (issue 35, defect 10). Under nohup (SIGHUP ignored at start) the run
// goes on and completes.
func TestSIGHUPInterruptsLikeSIGINT(t *testing.T) {
	// Under nohup go test ./... (SIGHUP ignored), the child would inherit
	// the ignored signal; a caught one is reset to its default across exec.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	out := filepath.Join(t.TempDir(), "res")
	cmd, stderr := startHelper(t, out, []string{"run", "--config", quickConfig, "--out", out, "--no-plots", "-q", "--workers", "1", "--seeds", "1", "--episodes", "3000", "--grace", "100ms"})
	signal.Stop(hup)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != int(ExitInterrupted) || !strings.Contains(stderr.String(), "smrl: interrupted: ") || !strings.Contains(stderr.String(), "resume with: smrl ") {
		t.Errorf("after SIGHUP: exit %d (%s), want 130 with the resume hint; stderr:\n%s", code, cmd.ProcessState, stderr)
	}

	// A child inherits an ignored signal across exec, as under nohup.
	out = filepath.Join(t.TempDir(), "nohup")
	signal.Ignore(syscall.SIGHUP)
	// 200 episodes (about 0.3 s of CPU for the 3 agents) outlast the
	// signal, sent as soon as metadata.json is there; the run completes them.
	cmd, stderr = startHelper(t, out, []string{"run", "--config", quickConfig, "--out", out, "--no-plots", "-q", "--workers", "1", "--seeds", "1", "--episodes", "200"})
	signal.Reset(syscall.SIGHUP)
	if _, err := os.Stat(filepath.Join(out, "episodes.csv")); err == nil {
		cmd.Wait()
		t.Skip("the run had finished before SIGHUP could be sent: the nohup case was not exercised")
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("under nohup, after SIGHUP: exit %d (%s), want 0; stderr:\n%s", code, cmd.ProcessState, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "episodes.csv")); err != nil {
		t.Errorf("under nohup the run did not complete after SIGHUP: %v", err)
	}
}

// Issue 19, item 11: SIGTERM with long trials in flight took minutes (the trials
// finished first). --grace bounds the wait, and a second signal ends it at
// once; both exit 130 with the trials in flight left to --resume.
func TestGraceAndSecondSignalAbandonTrials(t *testing.T) {
	for _, tc := range []struct {
		name    string
		grace   string
		signals int
	}{
		{"grace runs out", "100ms", 1},
		{"second signal", "0", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "res")
			args := []string{"run", "--config", quickConfig, "--out", out, "--no-plots", "-q", "--workers", "1", "--seeds", "1", "--episodes", "3000", "--grace", tc.grace}
			// A trial must be in flight when the signal comes: metadata.json
			// alone came before the first trial started on a loaded machine
			// (then nothing was abandoned), so wait for its first episode's
			// line in metrics.jsonl (of 3000).
			done := startMain(t, args, out, func(out string) bool {
				b, _ := os.ReadFile(filepath.Join(out, metrics.File))
				return bytes.Contains(b, []byte("\n"))
			})
			// The test hears each SIGINT too, and sends the next only after
			// the process took the last: two SIGINTs sent before it is
			// scheduled merge into one pending signal (a loaded machine),
			// and the run would then wait for its trial instead.
			heard := make(chan os.Signal, 4)
			signal.Notify(heard, os.Interrupt)
			defer signal.Stop(heard)
			start := time.Now()
			for range tc.signals {
				time.Sleep(20 * time.Millisecond)
				syscall.Kill(os.Getpid(), syscall.SIGINT)
				select {
				case <-heard:
				case <-time.After(10 * time.Second):
					t.Fatal("SIGINT not delivered within 10 s")
				}
			}
			r := <-done
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("exit %v after the signal", took)
			}
			if r.code != ExitInterrupted || !strings.Contains(r.stderr, "the trials in flight were abandoned; a resume recomputes them") {
				t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
			}
			if b := read(t, filepath.Join(out, "journal.jsonl")); b != "" {
				t.Errorf("an abandoned trial was journaled: %.80s", b)
			}
		})
	}
}

// --grace is one flag of run, compare and sweep with issue 18's
// vocabulary: in each command's help, with value completion (a duration,
// not a file name), and a negative value is a usage error.
func TestGraceFlagVocabulary(t *testing.T) {
	for _, cmd := range []string{"run", "compare", "sweep"} {
		_, stdout, _ := run(t, cmd, "--help")
		if !strings.Contains(stdout, "--grace duration") || !strings.Contains(stdout, "(default 20s)") {
			t.Errorf("smrl %s --help does not show --grace with its default:\n%s", cmd, stdout)
		}
		code, stdout, stderr := run(t, "__complete", cmd, "--grace", "")
		if code != ExitOK || !strings.Contains(stdout, "20s\n") || !strings.Contains(stdout, ":4\n") {
			t.Errorf("smrl __complete %s --grace: exit %d, stderr %q, want 20s without file completion:\n%s", cmd, code, stderr, stdout)
		}
		code, stdout, stderr = run(t, cmd, "--grace", "-1s", "--dry-run", "--set", "planner.tau=2", "--set", "seeds=1")
		wantUsage(t, code, stdout, stderr, "--grace: want a duration >= 0")
	}
	for _, cmd := range []string{"plot", "merge", "estimate", "config"} {
		if code, _, _ := run(t, cmd, "--grace", "1s"); code != ExitUsage {
			t.Errorf("smrl %s takes --grace (exit %d): it runs no trials", cmd, code)
		}
	}
}

// TestHelperSmrl is the child process of the kill tests: smrl with the
// arguments in SMRL_TEST_ARGS (separated by newlines).
func TestHelperSmrl(t *testing.T) {
	args := os.Getenv("SMRL_TEST_ARGS")
	if args == "" {
		t.Skip("helper process only")
	}
	os.Exit(int(Main(strings.Split(args, "\n"), os.Stdout, os.Stderr)))
}
