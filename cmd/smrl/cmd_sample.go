package main

import (
	"bufio"
	"context"
	"runtime"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/sample"
	"github.com/spf13/cobra"
)

// SampleOptions are the flags of smrl sample.
type SampleOptions struct {
	IO  *IOStreams
	Cmd *cobra.Command // for loadConfig

	Config        ConfigFlags
	Model         string
	Method        string
	State, Action []float64
	N             int
	Seed          uint64
	SeedSet       bool
	Workers       int
}

// sampleKeys maps config keys to the flags of smrl sample.
var sampleKeys = map[string]string{"seed": "seed", "workers": "workers"}

// NewCmdSample returns smrl sample; a non-nil runF is called with the
// parsed options instead of sampleRun.
func NewCmdSample(io *IOStreams, runF func(*SampleOptions) error) *cobra.Command {
	opts := &SampleOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "sample --state S --action A --n N [flags]",
		Short: "Draw next states s' from the true transition or a saved model at one (s, a)",
		Long: `Draw N next states s' ~ P_W(·|s, a) at the state --state and the action
--action from the config's true transition (W = env.w0), or with --model FILE
from a model smrl estimate --save-model wrote (--method chooses which of its
models; default its first), and write them to stdout as CSV with the header
s_next0, s_next1, ….

Families with an exact sampler (the products, gaussian, gaussian-coupled)
draw N independent states. The joint families sampled by MCMC (coupled-sin,
expressions of x0, x1, …) run 4 chains from dispersed starts through the
sampler's warm-up (sampler: section), then draw N/4 states from each, thinned
until every coordinate's effective sample size is at least N/2: the rows are
near-independent. The chains' step sizes and acceptance rates, and each
coordinate's effective sample size and split-R̂ (near 1 when the chains
agree), go to stderr. The draws depend on --seed (config seed) only, not on
--workers.

A state or action of the wrong length, a chain that diverges (a density
that is not normalisable at this η, an energy error beyond its bound) and a
model file that does not check are refused with exit 2.`,
		Example: `  smrl sample --config configs/coupled.yaml --state 0,0,0,0 --action 1 --n 1000 > draws.csv
  smrl sample --model model.json --method sm --state 0.5 --action -1 --n 200`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Cmd = cmd
			opts.SeedSet = cmd.Flags().Changed("seed")
			if runF != nil {
				return runF(opts)
			}
			return sampleRun(cmd.Context(), opts)
		},
	}
	addConfigFlags(cmd, &opts.Config, true)
	f := cmd.Flags()
	f.StringVar(&opts.Model, "model", "", "draw from a model `FILE` of smrl estimate --save-model instead of the config's true transition")
	f.StringVar(&opts.Method, "method", "", "with --model: the method of the model to draw from (default: the file's first)")
	f.Float64SliceVar(&opts.State, "state", nil, "the state s, d_s numbers")
	f.Float64SliceVar(&opts.Action, "action", nil, "the action a, d_a numbers")
	f.IntVar(&opts.N, "n", 1000, "number of draws")
	f.Uint64Var(&opts.Seed, "seed", 1, "master seed of the draws (config seed)")
	f.IntVar(&opts.Workers, "workers", 0, "parallel chains; 0 = all cores (config workers)")
	return cmd
}

func sampleRun(ctx context.Context, opts *SampleOptions) error {
	if opts.Model != "" && (len(opts.Config.Paths) > 0 || len(opts.Config.Set) > 0) {
		return usageErrorf("--model draws from the model file's own config: give no --config or --set")
	}
	if opts.Method != "" && opts.Model == "" {
		return usageErrorf("--method chooses a model of --model FILE")
	}
	var (
		m       *expfam.Model
		seed    = opts.Seed
		workers = opts.Workers
		delta   bool
	)
	if opts.Model != "" {
		model, mdp, err := sample.SavedModel(opts.Model, opts.Method)
		if err != nil {
			return err
		}
		m, delta = model, mdp.Model.Delta
	} else {
		copt, err := opts.Config.options()
		if err != nil {
			return err
		}
		copt.IgnoreAgents = true
		c, err := loadConfigOpts(opts.Cmd, copt, sampleKeys)
		if err != nil {
			return err
		}
		if m, _, err = sample.Model(c); err != nil {
			return err
		}
		seed, workers = c.Seed, c.Workers
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	req := sample.Request{State: opts.State, Action: opts.Action, N: opts.N, Seed: seed, Workers: workers, Delta: delta}
	res, err := sample.Draw(ctx, m, req)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(opts.IO.Out)
	if err := sample.WriteCSV(w, res); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	sample.WriteDiagnostics(opts.IO.ErrOut, res, opts.N)
	return nil
}
