package testutil

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// ExtServerEnv is the variable that turns a test binary into a server of
// env.kind external's protocol (docs/external.md): a test's TestMain calls
// MaybeServeExternal first, and a config runs the test binary itself
// (os.Args[0]) with the variable set, so that the tests need only Go.
const ExtServerEnv = "TEST_SMRL_EXTSERVER"

// ExtFault is how the test server misbehaves: at the Step-th step message
// of its life (counted from 1; 0: never) it answers malformed JSON
// ("malformed"), an observation of one number ("short"), none ("noobs"),
// a NaN reward
// ("nan", written as Python's json writes it), {"error": …} ("error"),
// exits with status 3 ("exit"), or stops answering ("hang"). Proc, when
// not 0, limits the fault to the Proc-th process started with the same
// Dir (counted by files created there; the process that reads the spec
// when the MDP is built is the first), so that the trials before it
// finish. NoRestore leaves can_restore out of the spec.
type ExtFault struct {
	Kind      string
	Step      int
	Proc      int
	Dir       string
	NoRestore bool
}

// String encodes f for ExtServerEnv: "kind:step:proc:norestore:dir".
func (f ExtFault) String() string {
	return fmt.Sprintf("%s:%d:%d:%t:%s", f.Kind, f.Step, f.Proc, f.NoRestore, f.Dir)
}

// parseFault decodes ExtFault.String.
func parseFault(s string) ExtFault {
	var f ExtFault
	parts := strings.SplitN(s, ":", 5)
	for len(parts) < 5 {
		parts = append(parts, "")
	}
	f.Kind, f.Dir = parts[0], parts[4]
	f.Step, _ = strconv.Atoi(parts[1])
	f.Proc, _ = strconv.Atoi(parts[2])
	f.NoRestore = parts[3] == "true"
	return f
}

// processNumber returns the number of this process among those started
// with dir: 1 for the first.
func processNumber(dir string) int {
	for n := 1; ; n++ {
		fh, err := os.OpenFile(fmt.Sprintf("%s/proc-%d", dir, n), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			fh.Close()
			return n
		}
		if !os.IsExist(err) {
			return -1
		}
	}
}

// MaybeServeExternal serves the damped pendulum on stdin and stdout and
// exits when ExtServerEnv is set; otherwise it returns.
func MaybeServeExternal() {
	v, ok := os.LookupEnv(ExtServerEnv)
	if !ok {
		return
	}
	f := parseFault(v)
	if f.Proc != 0 && processNumber(f.Dir) != f.Proc {
		f.Kind = ""
	}
	if err := ServeExternal(os.Stdin, os.Stdout, DampedDefaults, f); err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// ServeExternal serves d over the protocol of env.kind external, with the
// fault f, until {"close": true} or the end of in.
func ServeExternal(in io.Reader, out io.Writer, d Damped, f ExtFault) error {
	sc := bufio.NewScanner(in)
	w := bufio.NewWriter(out)
	state, next := make([]float64, 2), make([]float64, 2)
	steps := 0
	reply := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		w.Write(b)
		w.WriteByte('\n')
		return w.Flush()
	}
	for sc.Scan() {
		var msg map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			return fmt.Errorf("message %q: %w", sc.Text(), err)
		}
		var err error
		switch {
		case msg["spec"] != nil:
			spec := map[string]any{"obs_dim": 2, "action_dim": 1, "action_low": []float64{-d.MaxTorque}, "action_high": []float64{d.MaxTorque}, "horizon": d.Horizon}
			if !f.NoRestore {
				spec["can_restore"] = true
			}
			err = reply(spec)
		case msg["reset"] != nil:
			var seed uint64
			if err := json.Unmarshal(msg["reset"], &seed); err != nil {
				return err
			}
			d.Init(seed, state)
			err = reply(map[string]any{"obs": state})
		case msg["step"] != nil:
			var a []float64
			if err := json.Unmarshal(msg["step"], &a); err != nil {
				return err
			}
			steps++
			r := d.Reward(state, a)
			d.Step(state, a, next)
			state, next = next, state
			if f.Kind != "" && f.Step == steps {
				if err := misbehave(w, f.Kind, state, r); err != nil {
					return err
				}
				continue
			}
			err = reply(map[string]any{"obs": state, "reward": r, "terminated": false, "truncated": false})
		case msg["get_state"] != nil:
			err = reply(map[string]any{"state": state})
		case msg["set_state"] != nil:
			if err := json.Unmarshal(msg["set_state"], &state); err != nil {
				return err
			}
			err = reply(map[string]any{})
		case msg["close"] != nil:
			return nil
		default:
			return fmt.Errorf("unknown message %q", sc.Text())
		}
		if err != nil {
			return err
		}
	}
	return sc.Err()
}

// misbehave answers a step as fault kind says.
func misbehave(w *bufio.Writer, kind string, state []float64, r float64) error {
	switch kind {
	case "malformed":
		fmt.Fprintf(w, "{\"obs\": [%v, %v], \"reward\": \n", state[0], state[1])
	case "short":
		fmt.Fprintf(w, "{\"obs\": [%v], \"reward\": %v, \"terminated\": false, \"truncated\": false}\n", state[0], r)
	case "noobs":
		fmt.Fprintf(w, "{\"reward\": %v, \"terminated\": false, \"truncated\": false}\n", r)
	case "nan":
		fmt.Fprintf(w, "{\"obs\": [%v, %v], \"reward\": NaN, \"terminated\": false, \"truncated\": false}\n", state[0], state[1])
	case "error":
		fmt.Fprintf(w, "{\"error\": \"the simulator diverged\"}\n")
	case "exit":
		w.Flush()
		fmt.Fprintln(os.Stderr, "test server: exiting mid-episode as asked")
		os.Exit(3)
	case "hang":
		w.Flush()
		time.Sleep(time.Hour)
	}
	return w.Flush()
}
