package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// yamlTrial runs the first trial of the config in text (one seed) and
// returns its error.
func yamlTrial(t *testing.T, text string) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := testutil.LoadConfig(t, path)
	m, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	_, err = RunTrial(context.Background(), c, m, record.Trials(c)[0])
	return err
}

// wantInvalid fails unless err is invalid input (exit 2) whose message
// holds every part.
func wantInvalid(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("the run succeeded")
	}
	t.Log(err)
	if !errors.Is(err, errs.ErrInvalidInput) {
		t.Errorf("%v: not invalid input (exit 2)", err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%v: does not name %q", err, p)
		}
	}
}

// A gamma family whose rate 1 − s/2 turns negative once a state passes 2:
// the corners of the initial box [0.1, 1] pass the build's check, the
// states an episode reaches do not. The run stops naming env.w0 and the
// state instead of clamping the rate (which drew states of thousands).
func TestTrueGammaLeavingItsSpaceStopsTheRun(t *testing.T) {
	err := yamlTrial(t, `seeds: 1
episodes: 2
agents: [sm]
env:
  init_low: 0.1
  init_high: 1
  horizon: 10
  family: {kind: gamma, dim: 1}
  features: {kind: affine}
  w0: [[0, 0, 1], [-0.5, 0, 1]]
  reward: {width: 1, centers: [1]}
planner: {n_rollouts: 10}
`)
	wantInvalid(t, err, "env.w0", "η_1 = -", "at s = [", "gamma family", "episode 1 step 2")
}

// The oracle plans with the true model: when its rollouts leave the
// natural space of an expression family, the error names env.w0 and says
// nothing of lambda or b_star, which the oracle has none of.
func TestOracleRolloutsOutsideTheSpaceNameW0(t *testing.T) {
	err := yamlTrial(t, `seeds: 1
episodes: 1
agents: [oracle]
env:
  init_low: 0.1
  init_high: 1
  horizon: 5
  family: {kind: expression, log_q: "0", psi: ["-x", "log(x)"], support: [0, .inf]}
  features: {kind: affine}
  w0: [[-0.5, 0, 1], [0, 0, 1]]
  reward: {width: 1, centers: [1]}
planner: {n_rollouts: 10}
`)
	// An expression family has no env.family.alpha: the advice names log_q.
	wantInvalid(t, err, "env.w0", "oracle", "env.family.log_q of an expression family")
	if err != nil && (strings.Contains(err.Error(), "lambda") || strings.Contains(err.Error(), "b_star") || strings.Contains(err.Error(), "env.reward")) {
		t.Errorf("%v: blames lambda, b_star or the reward", err)
	}
}

// env.terminal that compares a NaN (log of a negative state) is an error
// naming env.terminal and the state, not a silent "not terminal": in the
// planner's rollouts (tau 2) and in the episode itself (tau 1: the
// rollouts reach no state the condition is asked of). The initial states
// are positive; s' = s + N(0, 1) soon is not.
func TestTerminalUndefinedAtAStateIsAnError(t *testing.T) {
	for _, tau := range []string{"2", "1"} {
		err := yamlTrial(t, `seeds: 1
episodes: 3
agents: [lds]
env:
  init_low: 1
  init_high: 1.5
  horizon: 20
  family: {kind: gaussian, dim: 1, sigma: 1}
  features: {kind: linear}
  w0: [[1, 0]]
  terminal: "log(s0) > 3"
  terminal_reward: 1
planner: {n_rollouts: 5, tau: `+tau+`}
`)
		wantInvalid(t, err, "env.terminal", "NaN", "s = [-")
	}
}

// Rewards finite at every state whose sum over a rollout overflows are the
// reward's fault (exit 2 naming env.reward), for a learner and for the
// oracle alike, not the planning model's (it was "a larger lambda or a
// smaller confidence.b_star", exit 1, or env.w0 for the oracle).
func TestRewardSumOverflowNamesTheReward(t *testing.T) {
	for _, ag := range []string{"sm", "oracle"} {
		err := yamlTrial(t, `seeds: 1
episodes: 1
agents: [`+ag+`]
env:
  reward: {expression: "1e307"}
planner: {n_rollouts: 10}
`)
		wantInvalid(t, err, "env.reward", "overflow")
		if err != nil && (strings.Contains(err.Error(), "lambda") || strings.Contains(err.Error(), "env.w0")) {
			t.Errorf("%s: %v: blames the model", ag, err)
		}
	}
}
