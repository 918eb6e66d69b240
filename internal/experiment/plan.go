package experiment

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/grid"
)

// printPlan prints what Run would do (smrl run --dry-run): the trials,
// the shard's share, and the files it would write. It writes nothing.
func printPlan(c *config.Config, mdp *env.MDP, opt Options) error {
	w := opt.Stdout
	if w == nil {
		w = io.Discard
	}
	// Counted, not listed (as a sweep's plan): a million seeds need no
	// trial in memory. Trial k is agent k / seeds, seed k % seeds
	// (record.Trials' order).
	all := len(c.Agents) * c.Seeds
	sel := opt.Shard.Held(0, all)
	fmt.Fprintf(w, "dry run: nothing is written\n")
	fmt.Fprintf(w, "config %s: env.kind %s, planner.kind %s, agents %v\n", c.Name, c.Env.Kind, c.Planner.Kind, c.Agents)
	fmt.Fprintf(w, "trials: %d (%d agents × %d seeds) of %d episodes of at most %d steps", sel, len(c.Agents), c.Seeds, c.Episodes, c.Env.Horizon)
	if opt.Shard.Count > 0 {
		fmt.Fprintf(w, ", shard %s of %d trials", opt.Shard, all)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "output: %s\n", opt.OutDir)
	if opt.SaveTransitions {
		fmt.Fprintf(w, "transitions: %s (at most %d rows: trials × episodes × steps)\n",
			filepath.Join(opt.OutDir, transitionsName(opt.TransitionsGzip)), sel*c.Episodes*c.Env.Horizon)
	}
	if opt.SaveModels {
		n := 0
		for i, a := range c.Agents {
			if learns(a, mdp) {
				n += opt.Shard.Held(i*c.Seeds, (i+1)*c.Seeds)
			}
		}
		fmt.Fprintf(w, "models: %s (%d files <agent>-seed<k>.json, one per trial of a learning agent)\n", filepath.Join(opt.OutDir, ModelsDir), n)
	}
	return nil
}

// printSweepPlan prints what RunSweep would do (smrl sweep --dry-run).
func printSweepPlan(s *grid.Sweep, root string, opt Options) error {
	w := opt.Stdout
	if w == nil {
		w = io.Discard
	}
	// Counted, not listed: the plan needs no trial in memory.
	trials := 0
	for _, p := range s.Points {
		trials += len(p.Config.Agents) * p.Config.Seeds
	}
	fmt.Fprintf(w, "dry run: nothing is written\n")
	fmt.Fprintf(w, "sweep %s: %d points, %d trials\n", s.Base.Name, len(s.Points), trials)
	fmt.Fprintf(w, "output: %s\n", root)
	for _, p := range s.Points {
		fmt.Fprintf(w, "  %s: %d trials -> %s\n", p.Label, len(p.Config.Agents)*p.Config.Seeds, filepath.Join(root, p.Name))
	}
	if opt.SaveModels {
		fmt.Fprintf(w, "models: %s in each point's directory (<agent>-seed<k>.json, one per trial of a learning agent)\n", ModelsDir)
	}
	return nil
}

// learns reports whether the named agent has a learned model to save:
// a learner (agent.Learns: the sm, lds and mle agents and their variants,
// not the oracle or lqr), unless it is an lds agent on its own features
// (model.lds_features).
func learns(name string, mdp *env.MDP) bool {
	return agent.Learns(name) && !agent.OwnFeatures(name, mdp.Model)
}
