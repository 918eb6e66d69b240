package estimate

import (
	"errors"
	"fmt"
	"slices"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// ModelEnvConfig is the section env.model of env.kind model: an
// environment whose true transition is a saved model, so that a model
// fitted to real data (smrl estimate --data --save-model) or learned in a
// run (smrl run --save-models) can be planned on and learned again.
type ModelEnvConfig struct {
	File   string `mapstructure:"file" yaml:"file" doc:"model file (smrl estimate --save-model, smrl run --save-models) whose fitted transition P_Ŵ is the true one; its config gives the states, actions, reward, initial states and the learners' model class"`
	Method string `mapstructure:"method" yaml:"method" doc:"which of the file's models is the truth (sm, lds, mle, ...); empty: the first"`
}

// modelEnvKind registers env.kind model with package env's registry. It
// lives here, beside the model file it reads (env cannot import the
// estimators that decide each method's family).
var modelEnvKind = env.Kind{Part: config.Part{Name: "model",
	Doc:     "a saved model as the true transition: P_Ŵ(s'|s,a) of a file smrl estimate --save-model or smrl run --save-models wrote, with the task of the config it was fitted with",
	Section: "env.model", Validate: validateModelEnv, Defaults: &ModelEnvConfig{}},
	Build: newModelEnv}

func init() { env.Register(modelEnvKind) }

// modelEnv reads the section's model file and picks its model: the file,
// the config it was fitted with and the index of the model.
func modelEnv(c *config.Config) (*ModelFile, *config.Config, int, error) {
	s := config.Section[ModelEnvConfig](c, "env.model")
	if s.File == "" {
		return nil, nil, 0, keyError{"env.model.file", errors.New("required with env.kind model (a file smrl estimate --save-model or smrl run --save-models wrote)")}
	}
	mf, mc, err := ReadModel(s.File)
	if err != nil {
		return nil, nil, 0, keyError{"env.model.file", err}
	}
	if s.Method == "" {
		return mf, mc, 0, nil
	}
	i := slices.IndexFunc(mf.Models, func(m SavedModel) bool { return m.Method == s.Method })
	if i < 0 {
		var have []string
		for _, m := range mf.Models {
			have = append(have, m.Method)
		}
		return nil, nil, 0, keyError{"env.model.method", fmt.Errorf("%s holds no %s model (it holds %v)", s.File, s.Method, have)}
	}
	return mf, mc, i, nil
}

// keyError is an error of the key key: validation reports it against
// that key, and its text is "key: err".
type keyError struct {
	key string
	err error
}

func (e keyError) Error() string { return e.key + ": " + e.err.Error() }
func (e keyError) Unwrap() error { return e.err }

// validateModelEnv checks that the model file can be read and that the
// config's actions are those the model was fitted with: the planners
// read them from this config.
func validateModelEnv(c *config.Config, bad config.Bad) {
	s := config.Section[ModelEnvConfig](c, "env.model")
	_, mc, _, err := modelEnv(c)
	if err != nil {
		var k keyError
		if errors.As(err, &k) {
			bad(k.key, "%v", k.err)
		} else {
			bad("env.model", "%v", err)
		}
		return
	}
	e, m := c.Env, mc.Env
	for _, k := range []struct {
		key      string
		got, was any
		same     bool
	}{
		{"env.action_space", e.ActionSpace, m.ActionSpace, e.ActionSpace == m.ActionSpace},
		{"env.action_dim", e.ActionDim, m.ActionDim, e.ActionDim == m.ActionDim},
		{"env.actions", e.Actions, m.Actions, m.ActionSpace != "discrete" || slices.Equal(e.Actions, m.Actions)},
		{"env.action_low", e.ActionLow, m.ActionLow, m.ActionSpace != "box" || slices.Equal(e.ActionLow, m.ActionLow)},
		{"env.action_high", e.ActionHigh, m.ActionHigh, m.ActionSpace != "box" || slices.Equal(e.ActionHigh, m.ActionHigh)},
	} {
		if !k.same {
			bad(k.key, "%v, but the model in %s was fitted with %s: %v (env.kind model plays the model's actions: set the same)", k.got, s.File, k.key, k.was)
		}
	}
}

// newModelEnv builds the MDP of env.kind model: the MDP of the model's own
// config (task, actions, initial states, labels, the learners' model
// class) with its transition replaced by P_Ŵ of the chosen model. The
// learners report |Ŵ − W0| when they learn in the family and features of
// that model (its W0 is Ŵ then).
func newModelEnv(c *config.Config) (*env.MDP, error) {
	mf, mc, i, err := modelEnv(c)
	if err != nil {
		return nil, err
	}
	inner, err := env.New(mc)
	if err != nil {
		return nil, fmt.Errorf("env.model.file: its config: %w", err)
	}
	if inner.Live != nil || inner.Init == nil {
		return nil, fmt.Errorf("env.model.file: %s was fitted on env.kind %s, whose initial states come from its own process: a saved model of it cannot draw them", config.Section[ModelEnvConfig](c, "env.model").File, mc.Env.Kind)
	}
	saved := mf.Models[i]
	dist, w, err := modelEnvDist(saved, inner, mc)
	if err != nil {
		return nil, err
	}
	feat := agent.Features(saved.Method, inner.Model)
	m, err := expfam.NewModel(dist, feat, w)
	if err != nil {
		return nil, fmt.Errorf("env.model.file: model %s: %w", saved.Method, err)
	}
	spec := inner.Model
	spec.W0 = nil
	if dist == inner.Model.Family && feat == inner.Model.Features {
		spec.W0 = m.W
	}
	mdp := &env.MDP{Dim: inner.Dim, Actions: inner.Actions, Box: inner.Box, Task: inner.Task,
		Dynamics: env.LearnedDynamics(m, inner.Model.Delta), Model: spec, Init: inner.Init,
		Labels: inner.Labels, Query: inner.Query}
	if !inner.Model.Delta {
		mdp.True = m
	}
	if check := env.NaturalSpaceCheck(m); check != nil {
		mdp.CheckTransition = func(s, a []float64) error {
			if err := check(s, a); err != nil {
				return fmt.Errorf("env.model.file (model %s): %w", saved.Method, err)
			}
			return nil
		}
	} else if c, ok := m.Dist.(expfam.EtaChecker); ok {
		// A kernel family's quadrature fails for a huge η (a saved W
		// entry of 1e50): refused before the step, not a panic in it. It
		// doubles the quadrature of a step (about a millisecond).
		mdp.CheckTransition = func(s, a []float64) error {
			eta := make([]float64, m.Dist.StatDim())
			m.Eta(s, a, make([]float64, m.Feat.Dim()), eta)
			if err := c.CheckEta(eta); err != nil {
				return fmt.Errorf("env.model.file (model %s): η = W·phi(s, a) at s = %v, a = %v: %w", saved.Method, s, a, err)
			}
			return nil
		}
	}
	return mdp, nil
}

// modelEnvDist is the saved model's family and vec(W) in the model class
// of its config: a kernel family bound to data rebuilt from the model
// (KernelDistribution), else the method's family.
func modelEnvDist(saved SavedModel, inner *env.MDP, mc *config.Config) (expfam.Distribution, []float64, error) {
	dist, w, kernel, err := SavedDist(saved, inner, mc.Sampler)
	switch {
	case err != nil && kernel:
		return nil, nil, fmt.Errorf("env.model.file: %w", err)
	case err != nil:
		return nil, nil, fmt.Errorf("env.model.method: %s: %w", saved.Method, err)
	}
	return dist, w, nil
}
