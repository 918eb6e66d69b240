package estimate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// Methods lists the estimators in their canonical order, the order of
// their registration (agent.RegisterEstimator): sm (score matching with
// model.kink), lds, mle, and the score-matching variants sm-kernel (the
// kernel kink term) and sm-plain (h ≡ 1, no kink term: the authors'
// estimator), for comparisons.
func Methods() []string { return agent.EstimatorNames() }

// DefaultMethods are the methods run when none are given
// (agent.Estimator.Default: sm, lds, mle).
func DefaultMethods() []string { return agent.DefaultEstimators() }

// MethodsHelp is the help of smrl estimate --method, from the
// registrations: the estimators with agents, those for comparison with
// what they vary, and the default.
func MethodsHelp() string {
	var main, compare []string
	for _, m := range Methods() {
		e, _ := agent.LookupEstimator(m)
		if e.EstimateOnly {
			compare = append(compare, fmt.Sprintf("%s (%s)", m, e.Doc))
		} else {
			main = append(main, m)
		}
	}
	s := "estimators to run: " + strings.Join(main, ", ")
	if len(compare) > 0 {
		s += ", and for comparison " + strings.Join(compare, ", ")
	}
	return s + " (default " + strings.Join(DefaultMethods(), ", ") + ")"
}

// streamDraw is the PCG stream of the data drawn by Run.
const streamDraw = 0x5eed_e571_0a7e

// ParseMethods checks and de-duplicates a list of method names, keeping
// their order; an empty list means DefaultMethods. An entry may itself be a
// comma-separated list. Unknown names are invalid input.
func ParseMethods(list []string) ([]string, error) {
	var out []string
	for _, item := range list {
		for _, m := range strings.Split(item, ",") {
			m = strings.TrimSpace(m)
			if m == "" {
				continue
			}
			if !slices.Contains(Methods(), m) {
				return nil, errs.Invalid(fmt.Errorf("unknown method %q (known: %s)", m, strings.Join(Methods(), ", ")))
			}
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	if len(out) == 0 {
		return DefaultMethods(), nil
	}
	return out, nil
}

// Options selects what Run does; every other setting (n, λ, seed, the
// model) comes from the config.
type Options struct {
	// Methods are the estimators to run, in output order; nil means all.
	Methods []string
	// Data is a CSV file of transitions (a data set or a run's
	// transitions log, see package dataset); empty means draw
	// config.Estimate.N transitions from the true model.
	Data string
	// Filter selects the rows of a transitions log in Data.
	Filter dataset.Filter
	// Progress, when not nil, receives a line on the current step every
	// ProgressEvery (default 5 s) while the estimate runs; nothing when it
	// finishes sooner.
	Progress      io.Writer
	ProgressEvery time.Duration
	// SE selects the standard errors (see SEOptions).
	SE SEOptions
}

// SEOptions selects the standard errors of the estimates: sm and lds
// report sandwich (Godambe / White HC0) standard errors, mle the inverse
// observed information unless MLESandwich.
type SEOptions struct {
	MLESandwich bool // mle: sandwich instead of the inverse observed information
	HC1         bool // multiply the sandwich variances by n/(n − d)
	// None skips the standard errors (smrl estimate --se none): se_kind is
	// "none", se and the Wald intervals null. The sandwich's second pass
	// over the data is then not made.
	None bool
}

// Result is the outcome of Run.
type Result struct {
	N        int         `json:"n"`
	Lambda   float64     `json:"lambda"`
	Family   string      `json:"family"`
	Features string      `json:"features"`
	Data     string      `json:"data,omitempty"` // the CSV file, when given
	W0       [][]float64 `json:"w0,omitempty"`   // the true W, when known
	// CV is the held-out loss of every λ of cv.grid when lambda is cv;
	// Lambda is then the λ of the smallest loss.
	CV []CVPoint `json:"cv,omitempty"`
	// Length is the chosen rff length scale and LengthCV the held-out loss
	// of every length of cv.lengths when model.features.length is cv.
	Length   *float64        `json:"length,omitempty"`
	LengthCV []LengthCVPoint `json:"length_cv,omitempty"`
	// SENote says why the estimates have no standard errors (se, se_kind
	// and the Wald intervals null): n below MinSEPerParameter per parameter.
	SENote string `json:"se_note,omitempty"`
	// Estimates are in the order of Options.Methods.
	Estimates []Estimate `json:"estimates"`
	// kernelPlot, of a kernel family bound to the data, is what its
	// density figure needs (KernelDensities).
	kernelPlot *kernelPlotInputs
	// warnings are the fit's, which Run writes to Options.Progress once
	// the fit has ended (the fit itself writes nothing).
	warnings []string
}

// Estimate is the fit of one method.
type Estimate struct {
	Method string      `json:"method"`
	W      [][]float64 `json:"W"` // d_psi rows of d_phi
	// SE are the standard errors of the entries of W (same shape), and
	// WaldLo, WaldHi the 95% Wald intervals Ŵ ∓ 1.96·SE.
	SE     [][]float64 `json:"se"`
	SEKind string      `json:"se_kind"` // sandwich, sandwich-hc1, information, withheld (Result.SENote) or none (--se none)
	WaldLo [][]float64 `json:"wald95_lo"`
	WaldHi [][]float64 `json:"wald95_hi"`
	// FrobeniusError is |Ŵ − W0|_F, nil when W0 is not known.
	FrobeniusError *float64 `json:"frobenius_error,omitempty"`
	// Seconds is the CPU time (user + system; wall time where the system
	// has no process CPU clock) of the method's fit and standard errors,
	// not of drawing or reading the data (cpuSeconds).
	Seconds float64 `json:"seconds"`
	// Weight names the score-matching weight of each coordinate (sm only):
	// see WeightDescription.
	Weight string `json:"weight,omitempty"`
	// Kernel is the fitted kernel family bound to the data (env.family.kind
	// kernel without centre_points; W is then coordinate 0's, or nil for
	// the autoregressive graph of d > 1), and KernelFits what was chosen
	// for each of its coordinates.
	Kernel     *estimator.KernelGraphModel `json:"kernel,omitempty"`
	KernelFits []KernelCoord               `json:"kernel_fits,omitempty"`
}

// Run fits every method of opt on data from opt.Data or drawn from the
// config's true model. Errors caused by the data, the config or the
// choice of λ (a singular system) wrap errs.ErrInvalidInput.
//
// Its two modes differ only in where the transitions come from
// (drawTransitions, readTransitions); fitAll fits them alike.
func Run(ctx context.Context, c *config.Config, opt Options) (*Result, error) {
	methods, err := ParseMethods(opt.Methods)
	if err != nil {
		return nil, err
	}
	mdp, err := env.New(c)
	if err != nil {
		return nil, errs.Invalid(err)
	}
	// The kernel family bound to the data forms no (d_psi·d_phi)² system:
	// its memory is n(d_phi + (d+1)m) numbers, of the order of the data's.
	if KernelSpecOf(mdp) == nil {
		if err := checkMethodMemory(c, methods); err != nil {
			return nil, err
		}
	}
	var st stage
	var halt sync.Once
	stop := heartbeat(opt.Progress, opt.ProgressEvery, st.get)
	defer halt.Do(stop)
	if opt.Data == "" && mdp.Live != nil {
		return nil, errs.Invalid(fmt.Errorf("env.kind %s: smrl estimate draws its transitions from the true model, which this environment keeps in its process; "+
			"give --data FILE (the transitions.csv of a run with --save-transitions)", c.Env.Kind))
	}
	// Reading 10⁶ rows takes about a second, drawing them longer: a signal
	// abandons it as it does the fit.
	data, err := interruptible(ctx, "reading the transitions was", func() (*dataset.Transitions, error) {
		if opt.Data == "" {
			return drawTransitions(c, mdp, &st)
		}
		return readTransitions(c, mdp, opt, &st)
	})
	if err != nil {
		return nil, err
	}
	// Drawn data too: a model of s' − s, or of another env's transitions,
	// need not have its targets in the family's support.
	if err := CheckSupport(mdp, data, opt.Data); err != nil {
		return nil, err
	}
	res, err := interruptible(ctx, "the fit was", func() (*Result, error) {
		if spec := KernelSpecOf(mdp); spec != nil {
			return fitKernel(c, mdp, spec, data, opt, &st)
		}
		return fitAll(c, mdp, data, methods, opt, &st)
	})
	// The fit's warnings, once it has ended and the progress lines have
	// stopped: an abandoned fit says nothing after the interruption's
	// message.
	halt.Do(stop)
	if err == nil && opt.Progress != nil {
		for _, w := range res.warnings {
			fmt.Fprintf(opt.Progress, "smrl estimate: %s\n", w)
		}
	}
	return res, err
}

// interruptible returns work's result, or an error wrapping
// errs.ErrInterrupted as soon as ctx is cancelled (at once if it already
// is), saying what was abandoned (what: "the fit was"): the fits do not
// poll ctx, and one of 10⁶ transitions would hold a SIGTERM for minutes,
// past a batch queue's grace. work runs on its own goroutine, which a
// cancellation abandons; it writes nothing (the caller writes the result),
// so an abandoned fit leaves no output, and it ends with the process. A
// panic in work is returned as errs.Recovered's error.
func interruptible[T any](ctx context.Context, what string, work func() (T, error)) (T, error) {
	var zero T
	abandoned := func() (T, error) {
		return zero, fmt.Errorf("%w (%s abandoned; nothing was written)", errs.ErrInterrupted, what)
	}
	if ctx.Err() != nil {
		return abandoned()
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1) // an abandoned work still sends, to no one
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: errs.Recovered(r)}
			}
		}()
		v, err := work()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		select {
		case r := <-done: // finished as the signal came: keep the work
			return r.v, r.err
		default:
			return abandoned()
		}
	}
}

// drawTransitions draws config.Estimate.N transitions from the true model
// of mdp, from the stream of (seed, streamDraw).
func drawTransitions(c *config.Config, mdp *env.MDP, st *stage) (*dataset.Transitions, error) {
	if err := c.CheckDataMemory(c.Estimate.N); err != nil {
		return nil, errs.Invalid(fmt.Errorf("estimate.n: %w", err))
	}
	st.set(fmt.Sprintf("drawing %d transitions from the true model", c.Estimate.N))
	data := Draw(mdp, c.Estimate.N, rand.New(rand.NewPCG(c.Seed, streamDraw)))
	if err := checkDrawn(mdp, data); err != nil {
		return nil, err
	}
	return data, nil
}

// readTransitions reads the rows of opt.Data that opt.Filter selects and
// checks that they fit the model of mdp (dimensions, range, memory).
func readTransitions(c *config.Config, mdp *env.MDP, opt Options, st *stage) (*dataset.Transitions, error) {
	st.set("reading " + opt.Data)
	data, err := dataset.ReadFileFilter(opt.Data, opt.Filter)
	if err != nil {
		return nil, err
	}
	if err := CheckDims(c, mdp, data, opt.Data); err != nil {
		return nil, err
	}
	if err := CheckRange(data, opt.Data); err != nil {
		return nil, err
	}
	if err := c.CheckDataMemory(data.Len()); err != nil {
		return nil, errs.Invalid(fmt.Errorf("%s: %w", opt.Data, err))
	}
	return data, nil
}

// fitAll fits every method on data, after the cross-validations the
// config asks for (rff length, λ). The error |Ŵ − W0|_F is reported for
// drawn data only (opt.Data empty), from a truth in the model class.
func fitAll(c *config.Config, mdp *env.MDP, data *dataset.Transitions, methods []string, opt Options, st *stage) (*Result, error) {
	res := &Result{
		N:        data.Len(),
		Lambda:   c.Lambda,
		Family:   mdp.Model.Family.String(),
		Features: mdp.Model.Features.String(),
		Data:     opt.Data,
	}
	w0 := mdp.Model.W0
	known := opt.Data == "" && w0 != nil // drawn from the true model, which is in the class
	if known {
		res.W0 = rows(w0, mdp.Model.Features.Dim())
	}
	if c.LengthCV {
		st.set(fmt.Sprintf("cross-validating the rff length on %d transitions", data.Len()))
		lc, err := CrossValidateLength(c, data, opt.Data)
		if err != nil {
			return nil, err
		}
		mdp = lc.MDP
		l := lc.Length
		res.Length, res.LengthCV, res.Features = &l, lc.Points, mdp.Model.Features.String()
		// The truth is not in the class of every candidate length: no W0.
		known, w0, res.W0 = false, nil, nil
	}
	// The features of a transition are computed when an estimator reads it
	// (onDemand), never stored for all n: memory is independent of n but
	// for the transitions themselves.
	lambda := c.Lambda
	if c.LambdaCV {
		st.set(fmt.Sprintf("cross-validating λ on %d transitions", data.Len()))
		cv, err := crossValidate(mdp, onDemand(mdp, data, nil, ""), data, c.CV.Grid, c.CV.Folds, opt.Data)
		if err != nil {
			return nil, err
		}
		res.CV = cv.Points
		lambda = cv.Lambda
		res.Lambda = lambda
	}
	dphi := mdp.Model.Features.Dim()
	perRow := (mdp.Model.Family.StatDim() + mdp.StateDim() - 1) / mdp.StateDim() // d_psi of a coordinate
	params := perRow * dphi
	withhold := data.Len() < MinSEPerParameter*params
	if withhold && !opt.SE.None {
		res.SENote = fmt.Sprintf("standard errors withheld: n = %d is below %d transitions per parameter (a coordinate's d_psi × d_phi = %d × %d parameters need at least %d); the sandwich and the information are meaningless there",
			data.Len(), MinSEPerParameter, perRow, dphi, MinSEPerParameter*params)
	}
	for _, m := range methods {
		st.set(fmt.Sprintf("fitting %s on %d transitions", m, data.Len()))
		e, w, err := fitMethod(m, mdp, data, lambda, opt, withhold, st)
		if err != nil {
			return nil, err
		}
		if known {
			f := Frobenius(w, w0)
			e.FrobeniusError = &f
		}
		res.Estimates = append(res.Estimates, e)
	}
	return res, nil
}

// fitMethod fits method m for Run and returns its Estimate (without the
// error |Ŵ − W0|_F) and vec(Ŵ): with standard errors and Wald intervals
// unless withhold (then se_kind is "withheld", see Result.SENote). A
// score-matching fit that is singular because the data's score terms
// overflow names the data (scoreOverflow) rather than λ.
func fitMethod(m string, mdp *env.MDP, data *dataset.Transitions, lambda float64, opt Options, withhold bool, st *stage) (Estimate, []float64, error) {
	start := cpuSeconds()
	var w, v []float64
	var err error
	kind := "withheld"
	at := onDemand(mdp, data, st, "fitting "+m)
	switch {
	case opt.SE.None:
		kind, withhold = "none", true
		w, _, _, err = fit(m, mdp, at, data.Len(), lambda, nil)
	case withhold:
		w, _, _, err = fit(m, mdp, at, data.Len(), lambda, nil)
	default:
		se := opt.SE
		w, v, kind, err = fit(m, mdp, at, data.Len(), lambda, &se)
	}
	secs := math.Round((cpuSeconds()-start)*1e6) / 1e6 // the clock counts microseconds
	if err != nil && strings.HasPrefix(m, "sm") && errors.Is(err, estimator.ErrSingular) {
		if cause := scoreOverflow(m, mdp, data, opt.Data); cause != nil {
			return Estimate{}, nil, cause // the data's scale, not λ
		}
	}
	if err != nil {
		return Estimate{}, nil, err
	}
	dphi := mdp.Model.Features.Dim()
	e := Estimate{Method: m, W: rows(w, dphi), Seconds: secs, SEKind: kind}
	if !withhold {
		se, lo, hi := make([]float64, len(w)), make([]float64, len(w)), make([]float64, len(w))
		for i, x := range v {
			se[i] = math.Sqrt(x)
			lo[i], hi[i] = w[i]-z975*se[i], w[i]+z975*se[i]
		}
		e.SE, e.WaldLo, e.WaldHi = rows(se, dphi), rows(lo, dphi), rows(hi, dphi)
	}
	if strings.HasPrefix(m, "sm") {
		e.Weight = WeightDescription(mdp.Model.SMSetup(smMode(m, mdp.Model)))
	}
	return e, w, nil
}

func interrupted(err error) error {
	return fmt.Errorf("%w (%v)", errs.ErrInterrupted, err)
}

// CheckDims reports, as invalid input naming the file, data whose state or
// action dimension differs from the config's.
func CheckDims(c *config.Config, mdp *env.MDP, data *dataset.Transitions, name string) error {
	ds, da := mdp.StateDim(), c.Env.ActionDim
	if data.StateDim != ds || data.ActionDim != da {
		return errs.Invalid(fmt.Errorf("%s: the data have state dimension %d and action dimension %d, but the config's family %v has state dimension %d and env.action_dim is %d",
			name, data.StateDim, data.ActionDim, mdp.Model.Family, ds, da))
	}
	// Per-action features have a block for each listed action only; a row
	// with another action would silently contribute nothing.
	if _, ok := mdp.Model.Features.(expfam.PerAction); ok {
		for i := 0; i < data.Len(); i++ {
			if !slices.ContainsFunc(mdp.Actions, func(a []float64) bool { return slices.Equal(a, data.Action(i)) }) {
				return errs.Invalid(fmt.Errorf("%s line %d: action %v is not one of env.actions %v (per-action features know only those)",
					name, i+2, data.Action(i), mdp.Actions))
			}
		}
	}
	return nil
}

// checkMethodMemory refuses methods whose matrices would exceed
// config.MaxTrialFloats for the config's W.
func checkMethodMemory(c *config.Config, methods []string) error {
	for _, m := range methods {
		e, _ := agent.LookupEstimator(m)
		if err := c.CheckFitMemory(m, e.Floats); err != nil {
			return errs.Invalid(fmt.Errorf("--method %s: %w", m, err))
		}
	}
	return nil
}

// CheckRange reports, as invalid input naming the file, line and column,
// the first state or action of data outside [−config.MaxAbsState,
// config.MaxAbsState]: no state can be drawn beyond, so the data cannot
// come from a model smrl can fit and sample, and such values make the
// estimates and their densities overflow.
func CheckRange(data *dataset.Transitions, name string) error {
	ds, da := data.StateDim, data.ActionDim
	col := func(base string, j, d int) string {
		if d == 1 {
			return base
		}
		return fmt.Sprintf("%s%d", base, j)
	}
	for i := range data.Len() {
		for _, part := range []struct {
			base string
			x    []float64
		}{{"s", data.State(i)}, {"a", data.Action(i)}, {"s_next", data.NextState(i)}} {
			for j, v := range part.x {
				if math.Abs(v) > config.MaxAbsState {
					d := ds
					if part.base == "a" {
						d = da
					}
					return errs.Invalid(fmt.Errorf("%s line %d column %q: %v is outside [−%d, %d], the range of states and actions smrl supports (its samplers normalise densities there)",
						name, i+2, col(part.base, j, d), v, config.MaxAbsState, config.MaxAbsState))
				}
			}
		}
	}
	return nil
}

// checkDrawn refuses drawn data whose true transition is not defined
// (env.MDP.CheckTransition: η = W0 phi(s, a) outside a bounded family's
// natural parameter space, where the sampler clamped η), naming env.w0,
// the state and the action; the build checks only the corners of the
// initial box, which decide for features linear in s alone.
func checkDrawn(mdp *env.MDP, data *dataset.Transitions) error {
	if mdp.CheckTransition == nil {
		return nil
	}
	for i := range data.Len() {
		if err := mdp.CheckTransition(data.State(i), data.Action(i)); err != nil {
			return errs.Invalid(fmt.Errorf("drawn transition %d: %w", i, err))
		}
	}
	return nil
}

// CheckSupport reports, as invalid input naming the file, line and
// column, the first target outside the open support (lo, hi) of its
// coordinate's family (x <= 0 for exponential and gamma, x outside (0, 1)
// for beta, outside (low, high) for truncated-gaussian): its density is 0
// there and its statistic (log x) may not even be finite. The target is
// what Fit fits: s', or s' − s for a model of the difference
// (model.target: delta). name is the file; empty for drawn data, which are
// named by transition.
func CheckSupport(mdp *env.MDP, data *dataset.Transitions, name string) error {
	cs, ok := mdp.Model.Family.(*expfam.Coords)
	if !ok {
		return nil
	}
	ds := data.StateDim
	col := func(base string, j int) string {
		if ds > 1 {
			return fmt.Sprintf("%s%d", base, j)
		}
		return base
	}
	at := targets(mdp, nil, data)
	for j, c := range cs.C {
		lo, hi := expfam.SupportOf(c)
		if math.IsInf(lo, -1) && math.IsInf(hi, 1) {
			continue
		}
		for i := range data.Len() {
			_, y := at(i)
			if v := y[j]; !(v > lo && v < hi) {
				where := fmt.Sprintf("%s line %d column %q", name, i+2, col("s_next", j))
				if name == "" {
					where = fmt.Sprintf("drawn transition %d: %s", i, col("s_next", j))
				}
				if mdp.Model.Delta {
					where += fmt.Sprintf(" − %s (model.target: delta)", col("s", j))
				}
				return errs.Invalid(fmt.Errorf("%s: %v is outside the support (%v, %v) of the %v family of coordinate %d",
					where, v, lo, hi, c, j))
			}
		}
	}
	return nil
}

// WeightDescription names score matching's weights and kernel kink terms
// (env.ModelSpec.SMSetup): per coordinate its weight h (expfam.Weight's
// String, h(x) = 1 for none), or h(x) = 1 for plain score matching, and the
// kernel bandwidths where there are any.
func WeightDescription(weights []expfam.Weight, bandwidths []float64) string {
	s := "h(x) = 1"
	if weights != nil {
		parts := make([]string, len(weights))
		for i, w := range weights {
			h := "h(x) = 1"
			if w != nil {
				h = w.String()
			}
			parts[i] = fmt.Sprintf("s'_%d: %s", i, h)
		}
		s = strings.Join(parts, "; ")
	}
	kernel := ""
	for _, h := range bandwidths {
		if h > 0 {
			kernel = fmt.Sprintf(", kernel kink term with bandwidths %v", bandwidths)
		}
	}
	return s + kernel
}

// smMode is the kink mode of a score-matching method: its registration's
// (agent.Estimator.Kink: kernel for sm-kernel, plain for sm-plain), else
// model.kink (sm).
func smMode(method string, m env.ModelSpec) string {
	if e, ok := agent.LookupEstimator(method); ok && e.Kink != "" {
		return e.Kink
	}
	return m.Kink
}

// Draw returns n i.i.d. transitions: s ~ the initial-state distribution
// (Unif[init_low, init_high]^{d_s} for env.kind expfam), a uniform over the
// MDP's actions and s' from the true transition (P_W0(·|s, a) for expfam),
// drawn from rng in that order, transition by transition.
func Draw(mdp *env.MDP, n int, rng *rand.Rand) *dataset.Transitions {
	ds, da := mdp.StateDim(), mdp.ActionDim()
	t := &dataset.Transitions{
		StateDim: ds, ActionDim: da,
		S: make([]float64, n*ds), A: make([]float64, n*da), Next: make([]float64, n*ds),
	}
	st := mdp.Dynamics.NewSimulator()
	for i := range n {
		s, a, next := t.State(i), t.Action(i), t.NextState(i)
		mdp.Init(rng, s)
		mdp.RandomAction(rng, a)
		st.Step(s, a, rng, next)
	}
	return t
}

// Features returns phi(s_t, a_t) for every transition, row-major
// (n × d_phi).
func Features(mdp *env.MDP, data *dataset.Transitions) []float64 {
	feat := mdp.Model.Features
	dphi := feat.Dim()
	phi := make([]float64, data.Len()*dphi)
	for i := range data.Len() {
		expfam.PhiBulk(feat, data.State(i), data.Action(i), phi[i*dphi:(i+1)*dphi])
	}
	return phi
}

// MinSEPerParameter is the fewest transitions per parameter of a
// coordinate's block of Ŵ (its d_psi × d_phi parameters, fitted to the n
// transitions' values of that coordinate) for which Run reports standard
// errors. Below it the sandwich's blocks rest on too few terms: on the
// paper's MDP (d_psi × d_phi = 1 × 2) the SM sandwich's 95% Wald
// intervals covered W0 in 2.5% of 1000 data sets at n = 2, 82.5% at
// n = 5, 92.0% at n = 10 and 94.5% at n = 20 (10 per parameter), and at
// n = 1 it reported 1e-6 for an error of 1.56.
const MinSEPerParameter = 10

// z975 is the 97.5% quantile of the standard normal: 95% Wald intervals
// are Ŵ ∓ z975·SE.
const z975 = 1.959963984540054

// Fit runs one method on the transitions with features phi (n × d_phi) and
// returns Ŵ (d_psi × d_phi, row-major), fitted to s' or, for a model of
// the difference (model.target: delta), to s' − s. A singular system, or an MLE that
// does not converge with λ = 0, is invalid input: the user chose λ and the
// data. The error names the method.
func Fit(method string, mdp *env.MDP, phi []float64, data *dataset.Transitions, lambda float64) ([]float64, error) {
	w, _, _, err := fit(method, mdp, targets(mdp, phi, data), data.Len(), lambda, nil)
	return w, err
}

// FitSE is Fit with the variances of the entries of Ŵ (same layout): the
// sandwich of sm and lds, and for mle the inverse observed information (or
// its sandwich, opt.MLESandwich). kind names the estimate: "sandwich",
// "sandwich-hc1" or "information". It costs one more pass over the data
// (sm, lds) or the stored transitions (mle sandwich).
func FitSE(method string, mdp *env.MDP, phi []float64, data *dataset.Transitions, lambda float64, opt SEOptions) (w, variance []float64, kind string, err error) {
	return fit(method, mdp, targets(mdp, phi, data), data.Len(), lambda, &opt)
}

// fit fits method to the n transitions at (features and targets) and,
// with se, computes the variances: a first pass over at for the
// statistics, a second for the sandwich.
func fit(method string, mdp *env.MDP, at estimator.Data, n int, lambda float64, se *SEOptions) (w, variance []float64, kind string, err error) {
	est, ok := agent.LookupEstimator(method)
	if !ok {
		return nil, nil, "", errs.Invalid(fmt.Errorf("unknown method %q (known: %s)", method, strings.Join(Methods(), ", ")))
	}
	e, err := est.New(agent.Setup{Spec: mdp.Model, Dphi: mdp.Model.Features.Dim()})
	if err != nil {
		return nil, nil, "", errs.Invalid(err)
	}
	var so estimator.SEOptions
	if se != nil {
		so.HC1 = se.HC1
		kind = "sandwich"
		if se.HC1 {
			kind = "sandwich-hc1"
		}
	}
	seFn := func(f *estimator.Fit) ([]float64, error) { return e.Sandwich(f, n, at, so) }
	if e.Information && se != nil && !se.MLESandwich {
		kind = "information"
		seFn = func(f *estimator.Fit) ([]float64, error) { return f.InverseDiag() }
	}
	for i := range n {
		e.Add(at(i))
	}
	f, err := e.Fit(lambda, nil)
	if err == nil && se != nil {
		variance, err = seFn(f)
	}
	if err != nil {
		err = fmt.Errorf("%s: %w", method, err)
		switch {
		case errors.Is(err, estimator.ErrHC1):
			err = errs.Invalid(fmt.Errorf("--hc1: %w", err))
		case errors.Is(err, estimator.ErrSingular) ||
			(errors.Is(err, estimator.ErrNoConvergence) && lambda == 0):
			err = errs.Invalid(err)
		}
		return nil, nil, "", err
	}
	return f.W, variance, kind, nil
}

// targets returns transition t of data as the estimators see it: its
// features (row t of phi, n × d_phi) and the target, s' or, for a model of
// the difference (model.target: delta), s' − s, as the agents fit it. The
// difference is written to one buffer, so a result is valid until the next
// call. With phi nil it returns the targets only.
func targets(mdp *env.MDP, phi []float64, data *dataset.Transitions) estimator.Data {
	dphi := mdp.Model.Features.Dim()
	var diff []float64
	if mdp.Model.Delta {
		diff = make([]float64, data.StateDim)
	}
	return func(t int) ([]float64, []float64) {
		y := data.NextState(t)
		if diff != nil {
			for j, s := range data.State(t) {
				diff[j] = y[j] - s
			}
			y = diff
		}
		if phi == nil {
			return nil, y
		}
		return phi[t*dphi : (t+1)*dphi], y
	}
}

// onDemand is targets with the features of transition t computed when it
// is read, into one buffer (valid until the next call, like the target of
// a model of the difference), so that no n × d_phi matrix is held: a
// fit's memory is its statistics (d_phi² per block) and the transitions.
// Each pass over the data computes the features again (the sandwich's
// second pass, every fold of a cross-validation). With st, every
// progressStep-th read sets the progress line to what, the pass and the
// count.
func onDemand(mdp *env.MDP, data *dataset.Transitions, st *stage, what string) estimator.Data {
	feat := mdp.Model.Features
	phi := make([]float64, feat.Dim())
	y := targets(mdp, nil, data)
	n, pass := data.Len(), 0
	return func(t int) ([]float64, []float64) {
		if st != nil && t%progressStep == 0 {
			if t == 0 {
				pass++
			}
			st.set(fmt.Sprintf("%s: pass %d over the data, transition %d of %d", what, pass, t, n))
		}
		expfam.PhiBulk(feat, data.State(t), data.Action(t), phi)
		_, next := y(t)
		return phi, next
	}
}

// progressStep is how often (in transitions) onDemand updates the
// progress line.
const progressStep = 1 << 14

// CVPoint is the held-out score-matching loss of one λ; Loss is nil (JSON
// null) when some fold's system is singular at that λ.
type CVPoint struct {
	Lambda float64  `json:"lambda"`
	Loss   *float64 `json:"loss"`
}

// CVResult is the outcome of CrossValidate.
type CVResult struct {
	Points []CVPoint
	Lambda float64 // the λ of the smallest loss
}

// CrossValidate chooses λ from grid by folds-fold held-out score-matching
// loss (estimator.CrossValidate) on the transitions with features phi and
// the targets Fit fits (s' − s for a model of the difference). Fewer transitions than folds is invalid input naming the key lambda and
// the file name (empty: the drawn data).
func CrossValidate(mdp *env.MDP, phi []float64, data *dataset.Transitions, grid []float64, folds int, name string) (*CVResult, error) {
	return crossValidate(mdp, targets(mdp, phi, data), data, grid, folds, name)
}

// crossValidate is CrossValidate on the transitions at (features and
// targets) of data.
func crossValidate(mdp *env.MDP, at estimator.Data, data *dataset.Transitions, grid []float64, folds int, name string) (*CVResult, error) {
	dphi := mdp.Model.Features.Dim()
	n := data.Len()
	if n < folds {
		where := "the data"
		if name != "" {
			where = name
		}
		return nil, errs.Invalid(fmt.Errorf("lambda: %s needs at least cv.folds = %d transitions, %s has %d", config.LambdaCVWord, folds, where, n))
	}
	proto, err := agent.NewSM(mdp.Model, mdp.Model.Family, dphi, smMode("sm", mdp.Model))
	if err != nil {
		return nil, errs.Invalid(err)
	}
	cv, err := estimator.CrossValidate(proto, n, at, folds, grid)
	if err != nil {
		if errors.Is(err, estimator.ErrSingular) || errors.Is(err, estimator.ErrFolds) {
			err = errs.Invalid(fmt.Errorf("lambda: %s: %w", config.LambdaCVWord, err))
		}
		return nil, err
	}
	out := &CVResult{Lambda: cv.Points[cv.Best].Lambda}
	for _, p := range cv.Points {
		q := CVPoint{Lambda: p.Lambda}
		if !math.IsInf(p.Loss, 0) {
			l := p.Loss
			q.Loss = &l
		}
		out.Points = append(out.Points, q)
	}
	return out, nil
}

// LengthCVPoint is the held-out score-matching loss of one rff length
// scale at its λ (the configured one, or the best of cv.grid when lambda is
// cv too); Loss is nil (JSON null) when every λ is singular at that length.
type LengthCVPoint struct {
	Length float64  `json:"length"`
	Lambda float64  `json:"lambda"`
	Loss   *float64 `json:"loss"`
}

// LengthCVResult is the outcome of CrossValidateLength.
type LengthCVResult struct {
	Points []LengthCVPoint
	Length float64  // the length of the smallest loss (the first of equal ones)
	MDP    *env.MDP // the model with the chosen length
}

// CrossValidateLength chooses model.features.length (rff) from cv.lengths
// by the same folds-fold held-out score-matching loss as lambda: cv. Each
// length ℓ builds its own feature map (same dim and seed, ω/ℓ), evaluates
// phi once and runs CrossValidate over cv.grid when lambda is cv, else
// over the single configured λ; the length of the smallest loss wins. The
// cost is |cv.lengths| times one λ cross-validation (one pass over the
// data per length plus a factorisation per fold and λ).
func CrossValidateLength(c *config.Config, data *dataset.Transitions, name string) (*LengthCVResult, error) {
	grid := []float64{c.Lambda}
	if c.LambdaCV {
		grid = c.CV.Grid
	}
	out := &LengthCVResult{}
	best := math.Inf(1)
	for _, l := range c.CV.Lengths {
		cl, err := c.With(config.LengthCVKey, l)
		if err != nil {
			return nil, err
		}
		mdp, err := env.New(cl)
		if err != nil {
			return nil, errs.Invalid(fmt.Errorf("%s: %s at length %v: %w", config.LengthCVKey, config.LambdaCVWord, l, err))
		}
		cv, err := crossValidate(mdp, onDemand(mdp, data, nil, ""), data, grid, c.CV.Folds, name) // features per read: no n × d_phi matrix
		if err != nil && errors.Is(err, estimator.ErrSingular) {
			out.Points = append(out.Points, LengthCVPoint{Length: l, Lambda: grid[0]})
			continue
		}
		if err != nil {
			return nil, err
		}
		p := LengthCVPoint{Length: l, Lambda: cv.Lambda}
		for _, q := range cv.Points {
			if q.Lambda == cv.Lambda {
				p.Loss = q.Loss
			}
		}
		if p.Loss != nil && *p.Loss < best {
			best, out.Length, out.MDP = *p.Loss, l, mdp
		}
		out.Points = append(out.Points, p)
	}
	if out.MDP == nil {
		return nil, errs.Invalid(fmt.Errorf("%s: %s: every length of cv.lengths is singular: %w", config.LengthCVKey, config.LambdaCVWord, estimator.ErrSingular))
	}
	return out, nil
}

// Frobenius returns |a − b|_F for two matrices of the same shape.
func Frobenius(a, b []float64) float64 {
	var s float64
	for i, x := range a {
		d := x - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}

// rows splits a row-major matrix with cols columns into rows.
func rows(w []float64, cols int) [][]float64 {
	out := make([][]float64, 0, len(w)/cols)
	for i := 0; i+cols <= len(w); i += cols {
		out = append(out, slices.Clone(w[i:i+cols]))
	}
	return out
}
