// Package sample is the smrl sample use case: draws of the next state s'
// from a config's true transition, or from a saved learned model, at one
// (s, a), with the diagnostics of the chains that drew them.
//
// A family with an exact sampler (the products, gaussian, gaussian-coupled)
// draws N independent states. A family sampled by MCMC (coupled-sin, the
// joint expression families) runs Chains separate chains from dispersed
// starts through their warm-up and then draws ⌈N/Chains⌉ states from each,
// thinned by the smallest k of 1, 2, 4, … up to MaxThin for which every
// coordinate's effective sample size over all chains is at least N/2: the
// N rows are then near-independent. The chains draw from streams of
// (seed, chain), so the draws do not depend on the number of workers.
package sample

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimate"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/mcmc"
)

// Chains is the number of separate chains of a family sampled by MCMC.
const Chains = 4

// MaxThin bounds the thinning of the chains.
const MaxThin = 1024

// MaxN bounds the number of draws.
const MaxN = 10_000_000

// Request is what to draw: N states s' at (State, Action) with the master
// seed Seed, on up to Workers goroutines.
type Request struct {
	State, Action []float64
	N             int
	Seed          uint64
	Workers       int
	// Delta: the model is of s' − s (model.target delta); the draws add
	// State back.
	Delta bool
}

// Result is the draws (N × d_s, row-major) and, for a family sampled by
// MCMC, the chains' diagnostics (nil for an exact sampler).
type Result struct {
	D     int
	Draws []float64
	Diag  *Diagnostics
}

// Diagnostics are the chains' acceptance, step size and thinning, and per
// coordinate the effective sample size and split-R̂ of the draws kept.
type Diagnostics struct {
	Kind             string
	Chains, PerChain int
	Warmup, Thin     int
	StepSize         []float64 // per chain
	Accept           []float64 // per chain, after warm-up
	ESS, Rhat        []float64 // per coordinate
}

// Model returns the true model of a config (env.kind expfam).
func Model(c *config.Config) (*expfam.Model, *env.MDP, error) {
	mdp, err := env.New(c)
	if err != nil {
		return nil, nil, err
	}
	if mdp.True == nil {
		return nil, nil, errs.Invalid(fmt.Errorf("env.kind: smrl sample draws from an exponential-family transition (env.kind expfam), not %s", c.Env.Kind))
	}
	return mdp.True, mdp, nil
}

// SavedModel returns the model of method in a model file (smrl estimate
// --save-model), with the MDP of its config; method "" is the file's
// first model.
func SavedModel(path, method string) (*expfam.Model, *env.MDP, error) {
	mf, c, err := estimate.ReadModel(path)
	if err != nil {
		return nil, nil, err
	}
	mdp, err := env.New(c)
	if err != nil {
		return nil, nil, errs.Invalid(fmt.Errorf("%s: its config: %w", path, err))
	}
	var names []string
	for _, m := range mf.Models {
		names = append(names, m.Method)
		if method != "" && m.Method != method {
			continue
		}
		dist, w, _, err := estimate.SavedDist(m, mdp, c.Sampler)
		if err != nil {
			return nil, nil, errs.Invalid(fmt.Errorf("%s: model %s: %w", path, m.Method, err))
		}
		model, err := expfam.NewModel(dist, mdp.Model.Features, w)
		if err != nil {
			return nil, nil, errs.Invalid(fmt.Errorf("%s: model %s: %w", path, m.Method, err))
		}
		return model, mdp, nil
	}
	return nil, nil, errs.Invalid(fmt.Errorf("%s holds no model of method %q (it holds %v)", path, method, names))
}

// CheckRequest refuses a state or action of the wrong length, or a
// non-finite entry, naming the flag and the expected length.
func CheckRequest(r Request, ds, da int) error {
	for _, x := range []struct {
		flag string
		v    []float64
		want int
	}{{"--state", r.State, ds}, {"--action", r.Action, da}} {
		if len(x.v) != x.want {
			return errs.Invalid(fmt.Errorf("%s: expected %d numbers (the %s has length %d), got %d", x.flag, x.want, x.flag[2:], x.want, len(x.v)))
		}
		for i, v := range x.v {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > config.MaxAbsState {
				return errs.Invalid(fmt.Errorf("%s: entry %d is %v, want a number in [−%d, %d]", x.flag, i, v, config.MaxAbsState, config.MaxAbsState))
			}
		}
	}
	if r.N < 1 || r.N > MaxN {
		return errs.Invalid(fmt.Errorf("--n: must lie in [1, %d], got %d", MaxN, r.N))
	}
	return nil
}

// splitmix is the SplitMix64 finaliser.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// stream is the PCG of (seed, index): index 0 draws an exact sampler's
// states, index 1 + i chain i.
func stream(seed, index uint64) *rand.PCG {
	h := splitmix(seed ^ splitmix(0x73616d706c65+index)) // "sample"
	return rand.NewPCG(h, splitmix(h^0xda3e39cb94b95bdb))
}

// Draw draws r.N states s' ~ P_W(· | r.State, r.Action) of m.
func Draw(ctx context.Context, m *expfam.Model, r Request) (*Result, error) {
	if err := CheckRequest(r, m.Feat.StateDim(), m.Feat.ActionDim()); err != nil {
		return nil, err
	}
	eta := make([]float64, m.Dist.StatDim())
	m.Eta(r.State, r.Action, make([]float64, m.Feat.Dim()), eta)
	for k, e := range eta {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return nil, errs.Invalid(fmt.Errorf("η_%d = W·phi(s, a) = %v at s = %v, a = %v", k, e, r.State, r.Action))
		}
	}
	if c, ok := m.Dist.(expfam.EtaChecker); ok {
		if err := c.CheckEta(eta); err != nil {
			return nil, errs.Invalid(fmt.Errorf("η = W·phi(s, a) at s = %v, a = %v: %w (check the model's W)", r.State, r.Action, err))
		}
	}
	d := m.Dist.StateDim()
	mc, ok := m.Dist.(*expfam.MCMC)
	if !ok {
		rng := rand.New(stream(r.Seed, 0))
		res := &Result{D: d, Draws: make([]float64, r.N*d)}
		for i := range r.N {
			if i%4096 == 0 && ctx.Err() != nil {
				return nil, fmt.Errorf("%w (%v)", errs.ErrInterrupted, ctx.Err())
			}
			m.Dist.Sample(eta, rng, res.Draws[i*d:(i+1)*d])
		}
		return res, finish(res, r)
	}
	res, err := drawChains(ctx, mc, eta, r)
	if err != nil {
		return nil, err
	}
	return res, finish(res, r)
}

// finish adds the state back to the draws of a model of s' − s and
// refuses draws that are not finite, naming the state.
func finish(res *Result, r Request) error {
	if r.Delta {
		for i := range res.Draws {
			res.Draws[i] += r.State[i%res.D]
		}
	}
	for _, v := range res.Draws {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errs.Invalid(fmt.Errorf("the sampler drew a non-finite state at s = %v, a = %v", r.State, r.Action))
		}
	}
	return nil
}

// drawChains draws by Chains chains of mc at eta (see the package doc).
func drawChains(ctx context.Context, mc *expfam.MCMC, eta []float64, r Request) (*Result, error) {
	d := mc.StateDim()
	chains := make([]*mcmc.Chain, Chains)
	for i := range chains {
		src := stream(r.Seed, uint64(1+i))
		c, err := mcmc.NewChain(expfam.NewTilted(mc.Joint, eta), mc.S, src)
		if err != nil {
			return nil, errs.Invalid(fmt.Errorf("sampler: %w", err))
		}
		// Dispersed starts, r.State + N(0, 1) (split-R̂ compares them).
		x0 := make([]float64, d)
		jitter := rand.New(stream(r.Seed, uint64(1+Chains+i)))
		for j := range x0 {
			x0[j] = jitter.NormFloat64()
			if len(r.State) == d && !r.Delta {
				x0[j] += r.State[j]
			}
		}
		if err := c.Start(x0); err != nil {
			return nil, divergence(err, r)
		}
		chains[i] = c
	}
	if err := mcmc.RunChains(chains, r.Workers, func(_ int, c *mcmc.Chain) error { return c.Warmup() }); err != nil {
		return nil, divergence(err, r)
	}
	per := (r.N + Chains - 1) / Chains
	draws := make([][]float64, Chains)
	for i := range draws {
		draws[i] = make([]float64, per*d)
	}
	diag := &Diagnostics{Kind: mc.S.Kind, Chains: Chains, PerChain: per, Warmup: mc.S.Warmup}
	for k := 1; ; k *= 2 {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%w (%v)", errs.ErrInterrupted, err)
		}
		err := mcmc.RunChains(chains, r.Workers, func(i int, c *mcmc.Chain) error { return c.Sample(per, k, draws[i]) })
		if err != nil {
			return nil, divergence(err, r)
		}
		diag.Thin = k
		diag.ESS = mcmc.PerCoordinate(draws, d, mcmc.ESS)
		if minOf(diag.ESS) >= float64(r.N)/2 || per < 4 {
			break
		}
		if 2*k > MaxThin {
			// The settings (sampler.*, --n) decide it: invalid input, exit 2.
			return nil, errs.Invalid(fmt.Errorf("%w: the %d chains thinned by %d reach an effective sample size of %.0f < N/2 = %d: the chains mix too slowly (try sampler.leapfrog, sampler.step_size or fewer draws)",
				mcmc.ErrThin, Chains, k, minOf(diag.ESS), r.N/2))
		}
	}
	diag.Rhat = mcmc.PerCoordinate(draws, d, mcmc.SplitRhat)
	for _, c := range chains {
		diag.StepSize = append(diag.StepSize, c.StepSize())
		diag.Accept = append(diag.Accept, c.AcceptRate())
	}
	res := &Result{D: d, Draws: make([]float64, 0, r.N*d), Diag: diag}
	for _, dr := range draws {
		res.Draws = append(res.Draws, dr...)
	}
	res.Draws = res.Draws[:r.N*d]
	return res, nil
}

func minOf(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}

// divergence words a chain's error as invalid input naming the state.
func divergence(err error, r Request) error {
	if errors.Is(err, mcmc.ErrDiverged) {
		return errs.Invalid(fmt.Errorf("the sampler's chain diverges at s = %v, a = %v (a density not normalisable there, or sampler.step_size too large): %w", r.State, r.Action, err))
	}
	return err
}

// WriteCSV writes the draws with the header s_next0, … to w.
func WriteCSV(w io.Writer, res *Result) error {
	buf := make([]byte, 0, 64*res.D)
	for i := range res.D {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "s_next"...)
		buf = strconv.AppendInt(buf, int64(i), 10)
	}
	buf = append(buf, '\n')
	if _, err := w.Write(buf); err != nil {
		return err
	}
	for r := range len(res.Draws) / res.D {
		buf = buf[:0]
		for i, v := range res.Draws[r*res.D : (r+1)*res.D] {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// WriteDiagnostics writes the chains' diagnostics (or that the draws are
// exact) to w, one line per coordinate.
func WriteDiagnostics(w io.Writer, res *Result, n int) {
	dg := res.Diag
	if dg == nil {
		fmt.Fprintf(w, "smrl sample: %d independent draws by the family's exact sampler\n", n)
		return
	}
	fmt.Fprintf(w, "smrl sample: %s, %d chains × %d draws thinned by %d after %d warm-up transitions\n", dg.Kind, dg.Chains, dg.PerChain, dg.Thin, dg.Warmup)
	for i := range dg.StepSize {
		fmt.Fprintf(w, "  chain %d: step size %.4g, acceptance %.3f\n", i, dg.StepSize[i], dg.Accept[i])
	}
	if dg.PerChain < 4 {
		fmt.Fprintf(w, "  (%d draws per chain are too few for the effective sample size and split-R̂)\n", dg.PerChain)
		return
	}
	fmt.Fprintf(w, "  %-10s %10s %8s\n", "coordinate", "ESS", "split-R̂")
	for i := range dg.ESS {
		fmt.Fprintf(w, "  s_next%-4d %10.0f %8.4f\n", i, dg.ESS[i], dg.Rhat[i])
	}
}
