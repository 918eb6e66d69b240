//go:build unix

package outdir

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

func TestLockExclusive(t *testing.T) {
	dir := t.TempDir()
	release, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, LockFile))
	if strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q, want the PID %d", b, os.Getpid())
	}
	// flock locks belong to the open file, so a second Lock conflicts even
	// within one process.
	_, err = Lock(dir)
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), fmt.Sprintf("PID %d", os.Getpid())) {
		t.Fatalf("second Lock: %v, want ErrInvalidInput naming PID %d", err, os.Getpid())
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	release() // idempotent
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("release left the lock file: %v", err)
	}
	again, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	again()
}

// TestHelperHoldLock is the child of TestLockHeldByOtherProcess: it takes
// the lock, says so, and waits to be killed.
func TestHelperHoldLock(t *testing.T) {
	dir := os.Getenv("OUTDIR_TEST_LOCK_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	if _, err := Lock(dir); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	select {}
}

// Another process's lock is reported with its PID, and a process killed
// with SIGKILL (no cleanup) does not keep the directory locked.
func TestLockHeldByOtherProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	cmd.Env = append(os.Environ(), "OUTDIR_TEST_LOCK_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "locked" {
		t.Fatalf("helper said %q", line)
	}
	_, err = Lock(dir)
	if want := fmt.Sprintf("PID %d", cmd.Process.Pid); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Lock while another process holds it: %v, want an error naming %s", err, want)
	}
	cmd.Process.Kill()
	cmd.Wait()
	release, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock after the holder was killed: %v", err)
	}
	release()
}
