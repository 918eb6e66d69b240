package experiment

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimate"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/runner"
)

// ModelsDir is the folder of a results directory that holds the learned
// models a run writes with Options.SaveModels: one model file per
// (agent, seed), ModelFileName.
const ModelsDir = "models"

// ModelFileName is the name of the model file of agent on the 0-based
// seed index seed, e.g. sm-ucb-seed0.json.
func ModelFileName(agent string, seed int) string {
	return fmt.Sprintf("%s-seed%d.json", agent, seed)
}

// modelSinks collects the learned model of every trial of a point.
type modelSinks struct {
	mu sync.Mutex
	m  map[record.Trial]runner.Learned
}

type trialSink struct {
	s *modelSinks
	t record.Trial
}

func (k trialSink) Learned(m runner.Learned) {
	k.s.mu.Lock()
	defer k.s.mu.Unlock()
	k.s.m[k.t] = m
}

// newModelSinks returns an empty collector of learned models.
func newModelSinks() *modelSinks {
	return &modelSinks{m: map[record.Trial]runner.Learned{}}
}

// checkModelsDir refuses, as invalid input naming it, an entry ModelsDir
// of smrl's own directory dir that is not a folder (a file of the user's):
// writeModels could not make the folder there, and the run would fail
// only after its trials. A link is refused before, by linkedEntries.
func checkModelsDir(dir string) error {
	p := filepath.Join(dir, ModelsDir)
	if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
		return errs.Invalid(fmt.Errorf("%s exists and is not a folder; --save-models writes the models into that folder: remove or rename it", p))
	}
	return nil
}

// writeModels writes the learned model of every trial that has one, in
// the format of smrl estimate --save-model (package estimate's
// ModelFile, with the one method of the agent), to
// dir/models/<agent>-seed<k>.json. The bytes depend only on the trials,
// never on the number of workers.
func writeModels(dir string, c *config.Config, mdp *env.MDP, trials []record.Trial, s *modelSinks, cfgYAML []byte) error {
	target := "next"
	if mdp.Model.Delta {
		target = "delta"
	}
	for _, t := range trials {
		m, ok := s.m[t]
		if !ok {
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, ModelsDir), 0o755); err != nil {
			return err
		}
		w := make([][]float64, m.DPsi)
		for i := range w {
			w[i] = m.W[i*m.DPhi : (i+1)*m.DPhi]
		}
		mf := &estimate.ModelFile{Format: estimate.ModelFormat, Family: mdp.Model.Family.String(),
			Features: mdp.Model.Features.String(), Target: target, Lambda: m.Lambda, N: m.N,
			Data:   fmt.Sprintf("trial %s seed %d", t.Agent, t.Seed),
			Models: []estimate.SavedModel{{Method: m.Method, W: w}}, Config: string(cfgYAML)}
		if err := estimate.WriteModel(filepath.Join(dir, ModelsDir, ModelFileName(t.Agent, t.Seed)), mf); err != nil {
			return err
		}
	}
	return nil
}

// removeModels removes the model files smrl wrote into dir/models (those
// that begin as estimate.WriteModel writes) and the folder when it is
// then empty; other files stay.
func removeModels(dir string) {
	md := filepath.Join(dir, ModelsDir)
	ents, err := os.ReadDir(md)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(md, e.Name())
		if !e.Type().IsRegular() || filepath.Ext(p) != ".json" {
			continue
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.HasPrefix(b, []byte(estimate.ModelPrefix)) {
			os.Remove(p)
		}
	}
	os.Remove(md) // only when empty
}

// refuseUnsaved refuses --save-models, as invalid input before anything
// is written, when one of c's agents learns a model that has no model
// file (agent.NoModelFile: ksm; an agent that binds the data-bound
// model.family at its refits, config.DataBoundFamily), rather than leave
// its file out in silence.
func refuseUnsaved(c *config.Config) error {
	bound := config.DataBoundFamily(c)
	for _, a := range c.Agents {
		if why := agent.NoModelFile(a); why != "" {
			return errs.Invalid(fmt.Errorf("--save-models: agent %s: %s", a, why))
		}
		if k, ok := agent.Lookup(a); ok && bound != "" && k.BindsData {
			return errs.Invalid(fmt.Errorf("--save-models: agent %s: its model of model.family %s, whose statistics it draws from its data during the run, has no model-file format (smrl estimate --data --save-model saves one fitted to a transition file: --save-transitions)", a, bound))
		}
	}
	return nil
}
