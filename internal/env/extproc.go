package env

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/smrl-dev/smrl/internal/errs"
)

// This file is smrl's side of the protocol of env.kind external
// (docs/external.md): one process speaking newline-delimited JSON on its
// stdin (smrl's messages) and stdout (its answers, one line each), with a
// timeout per message. Every failure of the process (it exits, hangs,
// answers malformed JSON, a wrong number of coordinates, a non-finite
// number or an "error") is invalid input naming the command, the message
// and the line it answered, and kills the process.

// maxLine bounds one line of the process's output (1 MiB: a million-digit
// observation is a bug, not a state).
const maxLine = 1 << 20

// proc is one running process of env.kind external. Its output is read
// where the request is made, with a deadline on the pipe: no goroutine
// stands between a message and its answer.
type proc struct {
	name    string // the command, as the messages quote it
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  *os.File // the read end of its output, which has deadlines
	rd      *bufio.Reader
	long    []byte // a line longer than rd's buffer
	timeout time.Duration
	stderr  *tail
	n       int    // lines read
	out     []byte // the message being sent
	dead    error  // set once the process has failed: every later request fails with it
	waited  bool
}

// startProc starts command with the per-message timeout. ctx ends the
// process (its process group, where the system has them) when it is done.
func startProc(ctx context.Context, command []string, timeout time.Duration) (*proc, error) {
	p := &proc{name: quoteCommand(command), timeout: timeout, stderr: &tail{max: 2048}}
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Stderr = p.stderr
	cmd.WaitDelay = time.Second // a grandchild holding its standard error open does not hold up Wait
	isolate(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		stdin.Close()
		return nil, err
	}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close() // the process holds its own copy
	if err != nil {
		r.Close()
		return nil, errs.Invalid(fmt.Errorf("env.external.command %s: cannot start: %w", p.name, err))
	}
	p.cmd, p.stdin, p.stdout = cmd, stdin, r
	p.rd = bufio.NewReaderSize(r, 64<<10)
	return p, nil
}

// readLine reads the next line of the process's output (without its end
// of line) within the timeout. The line is valid until the next read.
func (p *proc) readLine() ([]byte, error) {
	if err := p.stdout.SetReadDeadline(time.Now().Add(p.timeout)); err != nil {
		return nil, err
	}
	line, err := p.rd.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		p.long = append(p.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) && len(p.long) <= maxLine {
			line, err = p.rd.ReadSlice('\n')
			p.long = append(p.long, line...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			err = fmt.Errorf("a line longer than %d bytes", maxLine)
		}
		line = p.long
	}
	if err != nil {
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// drain reads the process's output to its end (so that no line is left
// unread), killing the process if it does not end within the timeout, and
// giving up a second of reading later (a program it started outside its
// group may hold the pipe).
func (p *proc) drain() {
	killed := false
	for {
		_, err := p.readLine()
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded) && !killed:
			p.kill()
			killed, p.timeout = true, min(p.timeout, time.Second)
		default:
			return
		}
	}
}

// quoteCommand writes command as the messages quote it: [python3 env.py].
func quoteCommand(command []string) string {
	q := make([]string, len(command))
	for i, w := range command {
		q[i] = w
		if w == "" || strings.ContainsAny(w, " \t\"'") {
			q[i] = strconv.Quote(w)
		}
	}
	return "[" + strings.Join(q, " ") + "]"
}

// request sends the message p.out (without its newline) and returns the
// line answered (valid until the next request). A process that does not
// answer within the timeout, or whose output ends, is killed and reaped,
// and the error says so.
func (p *proc) request() ([]byte, error) {
	if p.dead != nil {
		return nil, p.dead
	}
	p.out = append(p.out, '\n')
	_, werr := p.stdin.Write(p.out)
	p.out = p.out[:len(p.out)-1]
	if werr != nil {
		return nil, p.fail(nil, "got no answer: it could not be sent (%v)%s", werr, p.exitText())
	}
	line, err := p.readLine()
	switch {
	case err == nil:
		p.n++
		return line, nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		p.kill()
		return nil, p.fail(nil, "got no answer within env.external.timeout = %v; the process was killed", p.timeout)
	case errors.Is(err, io.EOF):
		return nil, p.fail(nil, "got no answer: its output ended%s", p.exitText())
	}
	return nil, p.fail(nil, "got no answer: reading its output failed (%v)%s", err, p.exitText())
}

// fail records and returns the process's failure on the message p.out
// (line, its answer, nil for none), as invalid input, and kills it: a
// process that misbehaved once is not asked again.
func (p *proc) fail(line []byte, format string, args ...any) error {
	what, msg := fmt.Sprintf(format, args...), string(p.out)
	var err error
	if line != nil {
		err = fmt.Errorf("env.external.command %s: to %s it answered (line %d of its output) %s: %s", p.name, msg, p.n, clipText(line), what)
	} else {
		err = fmt.Errorf("env.external.command %s: message %s %s", p.name, msg, what)
	}
	p.dead = errs.Invalid(err)
	p.kill()
	return p.dead
}

// clipText quotes a line, cut to 200 bytes.
func clipText(b []byte) string {
	if len(b) > 200 {
		return strconv.Quote(string(b[:200])) + "…"
	}
	return strconv.Quote(string(b))
}

// exitText describes how the process ended, with the end of its standard
// error, once its output has ended and it has exited (each waited for at
// most the timeout, then killed).
func (p *proc) exitText() string {
	p.drain()
	// A process may close its output and live on: it gets the timeout to
	// exit, then is killed.
	exited := make(chan error, 1)
	go func() { exited <- p.wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(p.timeout):
		p.kill()
		err = <-exited
	}
	s := "; the process exited"
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		s += " (" + ee.ProcessState.String() + ")"
	case err != nil:
		s += " (" + err.Error() + ")"
	default:
		s += " (exit status 0)"
	}
	if t := strings.TrimSpace(p.stderr.String()); t != "" {
		s += "; its standard error ended: " + t
	}
	return s
}

// wait reaps the process once and returns how it ended.
func (p *proc) wait() error {
	if p.waited {
		return nil
	}
	p.waited = true
	return p.cmd.Wait()
}

// kill ends the process (and its process group).
func (p *proc) kill() { killGroup(p.cmd) }

// close sends {"close": true}, closes the process's input, reads its
// output to the end (at most the timeout, then kills it), and reaps it. It
// is safe to call after a failure, and more than once.
func (p *proc) close() {
	if p.waited {
		return
	}
	if p.dead == nil {
		p.stdin.Write([]byte("{\"close\": true}\n")) //nolint:errcheck // it may have gone: it is reaped below either way
	}
	p.stdin.Close()
	p.drain()
	p.kill() // a process that closed its output but lingers
	p.wait() //nolint:errcheck // its results are complete; how it ends is not reported
	p.stdout.Close()
}

// tail keeps the last max bytes written to it (a process's standard
// error, for the error messages).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// answer is any answer of the protocol: the fields a message's answer
// must hold are checked by its caller.
type answer struct {
	Obs        []float64       `json:"obs"`
	Reward     *float64        `json:"reward"`
	Terminated *bool           `json:"terminated"`
	Truncated  *bool           `json:"truncated"`
	State      json.RawMessage `json:"state"`
	Error      *string         `json:"error"`
}

// decode parses line, the answer to p.out, into a (whose Obs keeps its
// capacity). A line that is not a JSON object, or an "error" answer, fails.
func (p *proc) decode(line []byte, a *answer) error {
	obs := a.Obs[:0]
	*a = answer{Obs: obs}
	if err := json.Unmarshal(line, a); err != nil {
		if bytes.Contains(line, []byte("NaN")) || bytes.Contains(line, []byte("Infinity")) {
			return p.fail(line, "it holds NaN or Infinity, which JSON cannot carry: the environment produced a non-finite number")
		}
		return p.fail(line, "not a JSON object of the protocol (%v)", err)
	}
	if a.Error != nil {
		return p.fail(line, "the environment reported an error: %s", *a.Error)
	}
	return nil
}

// observation checks that a's observation holds dim finite numbers and
// copies it to out.
func (p *proc) observation(line []byte, a *answer, dim int, out []float64) error {
	switch {
	case len(a.Obs) == 0 && !bytes.Contains(line, []byte(`"obs"`)): // Obs keeps its capacity, so absent is empty
		return p.fail(line, "it has no \"obs\"")
	case len(a.Obs) != dim:
		return p.fail(line, "\"obs\" has %d numbers, the spec's obs_dim is %d", len(a.Obs), dim)
	}
	copy(out, a.Obs)
	return nil
}

// appendFloats appends xs as a JSON array of numbers that read back to the
// same bits (strconv's shortest representation, 'g', −1).
func appendFloats(b []byte, xs []float64) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	return append(b, ']')
}

// finiteReward checks a step answer's reward.
func finiteReward(r float64) bool { return !math.IsNaN(r) && !math.IsInf(r, 0) }
