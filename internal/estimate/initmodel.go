package estimate

import (
	"fmt"
	"strings"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
)

// InitWeights reads the model file path (config key init_model) for the
// learners of mdp: each saved model's vec(Ŵ) by its method (sm, lds,
// mle), which the learners of that estimator plan with until their first
// refit (env.ModelSpec.Init). Every saved model must live in the family
// and features its method's learners use in mdp, with the same target
// (s' or s' − s): otherwise its Ŵ means nothing to them, and the error,
// wrapping errs.ErrInvalidInput, names init_model and both model classes.
func InitWeights(path string, mdp *env.MDP) (map[string][]float64, error) {
	mf, mc, err := ReadModel(path)
	if err != nil {
		return nil, fmt.Errorf("init_model: %w", err)
	}
	saved, err := env.New(mc)
	if err != nil {
		return nil, errs.Invalid(fmt.Errorf("init_model: %s: its config: %w", path, err))
	}
	if saved.Model.Delta != mdp.Model.Delta {
		return nil, errs.Invalid(fmt.Errorf("init_model: %s models %s, the learners of this run %s (model.target)", path, target(saved.Model.Delta), target(mdp.Model.Delta)))
	}
	init := map[string][]float64{}
	for _, m := range mf.Models {
		class := func(spec env.ModelSpec) (string, error) {
			dist, err := agent.Family(m.Method, spec)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("family %v with features %v", dist, agent.Features(m.Method, spec)), nil
		}
		was, err := class(saved.Model)
		if err != nil {
			return nil, errs.Invalid(fmt.Errorf("init_model: %s: model %s: %w", path, m.Method, err))
		}
		now, err := class(mdp.Model)
		if err != nil {
			return nil, errs.Invalid(fmt.Errorf("init_model: model %s: %w", m.Method, err))
		}
		if was != now {
			hint := ""
			if strings.ReplaceAll(was, ", fma=true", "") == strings.ReplaceAll(now, ", fma=true", "") {
				// The same features in the other arithmetic: the last digits differ.
				hint = fmt.Sprintf("; they differ in model.features.fma only: set it to %v", strings.Contains(was, "fma=true"))
			}
			return nil, errs.Invalid(fmt.Errorf("init_model: %s: its %s model is of %s, but this run's %s learners fit %s%s", path, m.Method, was, m.Method, now, hint))
		}
		var w []float64
		for _, row := range m.W {
			w = append(w, row...)
		}
		init[m.Method] = w
	}
	return init, nil
}

// target names what a model of s' (delta false) or of s' − s models.
func target(delta bool) string {
	if delta {
		return "s' − s (model.target: delta)"
	}
	return "s' (model.target: next)"
}
