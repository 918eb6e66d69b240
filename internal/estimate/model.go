package estimate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/fsutil"
	"go.yaml.in/yaml/v3"
)

// ModelFormat identifies the format of a model file.
const ModelFormat = "smrl-model/1"

// ModelFile is model.json: the models smrl estimate fitted, with what is
// needed to use them again. Config is the resolved config YAML, which
// fixes the family and the features (with their seeds, for random
// features); Family, Features and Target repeat them for the reader.
type ModelFile struct {
	Format   string       `json:"format"`
	Family   string       `json:"family"`
	Features string       `json:"features"`
	Target   string       `json:"target"` // "next" (s') or "delta" (s' − s)
	Lambda   float64      `json:"lambda"`
	N        int          `json:"n"`
	Data     string       `json:"data,omitempty"`
	Models   []SavedModel `json:"models"`
	Config   string       `json:"config"`
}

// SavedModel is one fitted W: method sm, lds or mle (the lds model is the
// Gaussian with lds.sigma on the same features).
type SavedModel struct {
	Method string      `json:"method"`
	W      [][]float64 `json:"W"`
	// Kernel is the fitted kernel family bound to the data (its centres,
	// bandwidth, base scale and W per coordinate), for a config whose
	// family is the kernel family without centre_points.
	Kernel *estimator.KernelGraphModel `json:"kernel,omitempty"`
}

// ModelOf returns the model file of a result fitted with config c.
func ModelOf(r *Result, c *config.Config) (*ModelFile, error) {
	if r.Length != nil {
		// The features are those of the length cross-validation chose:
		// the config must say so, or it would load with another length.
		cl, err := c.With(config.LengthCVKey, *r.Length)
		if err != nil {
			return nil, err
		}
		cl.LengthCV = false
		c = cl
	}
	y, err := c.YAML()
	if err != nil {
		return nil, err
	}
	target := "next"
	if c.Model.Target == "delta" {
		target = "delta"
	}
	mf := &ModelFile{Format: ModelFormat, Family: r.Family, Features: r.Features, Target: target,
		Lambda: r.Lambda, N: r.N, Data: r.Data, Config: string(y)}
	for _, e := range r.Estimates {
		mf.Models = append(mf.Models, SavedModel{Method: e.Method, W: e.W, Kernel: e.Kernel})
	}
	return mf, nil
}

// ModelPrefix is how every model file begins (WriteModel's indented JSON
// with the format first), by which smrl knows the files it may replace.
var ModelPrefix = "{\n  \"format\": \"" + ModelFormat + "\""

// WriteModel writes mf to path as indented JSON, atomically.
func WriteModel(path string, mf *ModelFile) error {
	return fsutil.WriteAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(mf)
	})
}

// ReadModel reads a model file and the config it was fitted with. Every
// field is checked against that config (checkModel): the file is not
// trusted. Errors wrap errs.ErrInvalidInput and name the file and the
// field.
func ReadModel(path string) (*ModelFile, *config.Config, error) {
	b, err := readModelBytes(path)
	if err != nil {
		return nil, nil, errs.Invalid(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var mf ModelFile
	if err := dec.Decode(&mf); err != nil {
		return nil, nil, errs.Invalid(fmt.Errorf("%s: %w", path, err))
	}
	if dec.More() {
		return nil, nil, errs.Invalid(fmt.Errorf("%s: data after the model's JSON object (a file smrl estimate --save-model wrote holds one)", path))
	}
	if mf.Format != ModelFormat {
		return nil, nil, errs.Invalid(fmt.Errorf("%s: format %q, want %q (a file smrl estimate --save-model wrote)", path, mf.Format, ModelFormat))
	}
	// An empty config would load as the defaults: the paper's family,
	// whatever the models were fitted with.
	var top map[string]any // nil for "", a comment, null or {}
	if yaml.Unmarshal([]byte(mf.Config), &top) == nil && len(top) == 0 {
		return nil, nil, errs.Invalid(fmt.Errorf("%s: config: empty; a model file holds the resolved config its models were fitted with", path))
	}
	// config.Load reads files: the embedded config goes through one.
	tmp, err := os.MkdirTemp("", "smrl-model-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	cfgPath := filepath.Join(tmp, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(mf.Config), 0o600); err != nil {
		return nil, nil, err
	}
	c, err := config.Load(config.Options{Path: cfgPath, IgnoreAgents: true, NoTrueW: true})
	if err != nil {
		// The temporary file is gone when the error is read: name the
		// model file's config instead.
		return nil, nil, fmt.Errorf("%s: its config: %w", path, renamedError{err, cfgPath, "config"})
	}
	if err := checkModel(&mf, c); err != nil {
		return nil, nil, errs.Invalid(fmt.Errorf("%s: %w", path, err))
	}
	return &mf, c, nil
}

// MaxModelBytes bounds the size of a model file smrl reads: far above any
// model it writes (W of 17 × 2000 entries is under 1 MB), it keeps a
// wrong path (a device, a huge file) from exhausting memory.
const MaxModelBytes = 256 << 20

// readModelBytes reads the model file path: a regular file (a link to one
// is followed) of at most MaxModelBytes.
func readModelBytes(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (a model file smrl estimate --save-model or smrl run --save-models wrote)", path)
	}
	if fi.Size() > MaxModelBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d of any model file smrl reads", path, fi.Size(), MaxModelBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxModelBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(b) > MaxModelBytes {
		return nil, fmt.Errorf("%s: more than the %d bytes of any model file smrl reads", path, MaxModelBytes)
	}
	return b, nil
}

// renamedError is err with every mention of the path from replaced by to.
type renamedError struct {
	err      error
	from, to string
}

func (e renamedError) Error() string { return strings.ReplaceAll(e.err.Error(), e.from, e.to) }
func (e renamedError) Unwrap() error { return e.err }

// checkModel checks every field of mf against c, its embedded config:
// family, features and target as c's MDP has them, λ ≥ 0, n ≥ 1, and at
// least one model, each of a known method listed once. The errors name
// the field.
func checkModel(mf *ModelFile, c *config.Config) error {
	mdp, err := env.New(c)
	if err != nil {
		return fmt.Errorf("its config: %w", err)
	}
	target := "next"
	if mdp.Model.Delta {
		target = "delta"
	}
	for _, f := range []struct{ key, got, want string }{
		{"family", mf.Family, mdp.Model.Family.String()},
		{"features", mf.Features, mdp.Model.Features.String()},
		{"target", mf.Target, target},
	} {
		if f.got != f.want {
			return fmt.Errorf("%s: %q, but its config gives %q", f.key, f.got, f.want)
		}
	}
	if !(mf.Lambda >= 0) { // JSON has no NaN or Inf
		return fmt.Errorf("lambda: must be >= 0, got %v", mf.Lambda)
	}
	if mf.N < 1 {
		return fmt.Errorf("n: must be at least 1 (the transitions fitted), got %d", mf.N)
	}
	if len(mf.Models) == 0 {
		return errors.New("models: none")
	}
	first := map[string]int{}
	for i, m := range mf.Models {
		if !slices.Contains(Methods(), m.Method) {
			return fmt.Errorf("models: model %d: unknown method %q (known: %s)", i, m.Method, strings.Join(Methods(), ", "))
		}
		if j, ok := first[m.Method]; ok {
			return fmt.Errorf("models: model %d: method %s listed twice (model %d is %s too)", i, m.Method, j, m.Method)
		}
		first[m.Method] = i
		if spec := KernelSpecOf(mdp); spec != nil {
			if err := checkKernelModel(m, spec, mdp.Model.Features.Dim()); err != nil {
				return fmt.Errorf("models: model %d: %w", i, err)
			}
			continue
		}
		if err := checkW(m, mdp); err != nil {
			return fmt.Errorf("models: model %d: %w", i, err)
		}
	}
	if !c.LambdaCV && mf.Lambda != c.Lambda && !theoremLambda(mf, c) {
		return fmt.Errorf("lambda: %v, but its config gives lambda = %v", mf.Lambda, c.Lambda)
	}
	return nil
}

// theoremLambda reports whether mf's λ is the regret theorem's 1/b_star²
// of a config with confidence.lambda: theorem: its -ucb agents fit with
// it, and smrl run --save-models saves their models with the run's config.
func theoremLambda(mf *ModelFile, c *config.Config) bool {
	k := agent.ConfidenceOf(c)
	b := k.BStar
	return k.Lambda == "theorem" && b > 0 && mf.Lambda == 1/(b*b)
}

// MaxAbsW bounds the entries of a saved W: beyond, η = W·phi and the
// densities built on it overflow for features of order one.
const MaxAbsW = 1e100

// checkW checks the shape of a saved model's W against the family of its
// method and the features of its config: d_psi rows of d_phi numbers.
func checkW(m SavedModel, mdp *env.MDP) error {
	dist, err := agent.Family(m.Method, mdp.Model)
	if err != nil {
		return fmt.Errorf("%s: %w", m.Method, err)
	}
	dphi := mdp.Model.Features.Dim()
	for i, row := range m.W {
		if len(row) != dphi {
			return fmt.Errorf("%s: W has rows of %d, the features have d_phi = %d", m.Method, len(row), dphi)
		}
		for j, w := range row {
			if math.Abs(w) > MaxAbsW {
				return fmt.Errorf("%s: W[%d][%d] = %v: entries beyond ±%g make η = W·phi overflow (a fitted W is far smaller)", m.Method, i, j, w, MaxAbsW)
			}
		}
	}
	if len(m.W) != dist.StatDim() {
		return fmt.Errorf("%s: W has %d rows, the family %v needs d_psi = %d", m.Method, len(m.W), dist, dist.StatDim())
	}
	return nil
}

// Evaluation is how well one saved model fits held-out transitions.
type Evaluation struct {
	Method string `json:"method"`
	N      int    `json:"n"`
	// SMLoss is the empirical score-matching objective
	// J(Ŵ) = (½ vec(Ŵ)ᵀ V_n vec(Ŵ) + b_nᵀ vec(Ŵ)) / n on the data (up to
	// a constant that does not depend on Ŵ; lower is better).
	SMLoss float64 `json:"sm_loss"`
	// LogLik is the mean log-likelihood (1/n) Σ log P_Ŵ(s'_t | s_t, a_t)
	// (of s' − s for a model of the difference), nil where the density
	// cannot be normalised.
	LogLik *float64 `json:"log_likelihood,omitempty"`
	// LogLikSE is the Monte Carlo standard error of LogLik where the
	// log-partition is estimated (a family sampled by MCMC: importance
	// sampling per transition, √(Σ_t se_t²)/n); absent where it is exact.
	LogLikSE *float64 `json:"log_likelihood_se,omitempty"`
	// SEWhat says what LogLikSE is for the table ("" : the Monte Carlo
	// error of importance-sampled log Z).
	SEWhat string `json:"-"`
}

// Evaluate scores every model of mf, fitted under config c, on the
// transitions in data (filtered by f).
func Evaluate(ctx context.Context, mf *ModelFile, c *config.Config, data string, f dataset.Filter) ([]Evaluation, error) {
	mdp, err := env.New(c)
	if err != nil {
		return nil, errs.Invalid(err)
	}
	d, err := dataset.ReadFileFilter(data, f)
	if err != nil {
		return nil, err
	}
	if err := CheckDims(c, mdp, d, data); err != nil {
		return nil, err
	}
	if err := CheckRange(d, data); err != nil {
		return nil, err
	}
	if err := CheckSupport(mdp, d, data); err != nil {
		return nil, err
	}
	feat := mdp.Model.Features
	dphi := feat.Dim()
	phi := Features(mdp, d)
	y := make([]float64, d.Len()*d.StateDim) // the targets, as Fit fits them
	at := targets(mdp, nil, d)
	for i := range d.Len() {
		_, yi := at(i)
		copy(y[i*d.StateDim:], yi)
	}
	var out []Evaluation
	for _, m := range mf.Models {
		if err := ctx.Err(); err != nil {
			return nil, interrupted(err)
		}
		if spec := KernelSpecOf(mdp); spec != nil {
			e, err := evaluateKernel(m, spec, mdp, d, data)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
			continue
		}
		dist, err := agent.Family(m.Method, mdp.Model)
		if err != nil {
			return nil, errs.Invalid(fmt.Errorf("model %s: %w", m.Method, err))
		}
		var w []float64
		for _, row := range m.W {
			if len(row) != dphi {
				return nil, errs.Invalid(fmt.Errorf("model %s: W has rows of %d, the features have d_phi = %d", m.Method, len(row), dphi))
			}
			w = append(w, row...)
		}
		if len(w) != dist.StatDim()*dphi {
			return nil, errs.Invalid(fmt.Errorf("model %s: W has %d entries, the family %v needs %d × %d", m.Method, len(w), dist, dist.StatDim(), dphi))
		}
		// The held-out loss is the objective of the model's own estimator
		// (weighted SM by model.kink for sm and mle, plain for lds).
		mode := "plain"
		if m.Method != "lds" {
			mode = smMode(m.Method, mdp.Model)
		}
		sm, err := agent.NewSM(mdp.Model, dist, dphi, mode)
		if err != nil {
			return nil, errs.Invalid(err)
		}
		for i := range d.Len() {
			sm.Add(phi[i*dphi:(i+1)*dphi], y[i*d.StateDim:(i+1)*d.StateDim])
		}
		e := Evaluation{Method: m.Method, N: d.Len(), SMLoss: sm.Objective(w) / float64(d.Len())}
		if math.IsNaN(e.SMLoss) || math.IsInf(e.SMLoss, 0) {
			return nil, errs.Invalid(fmt.Errorf("model %s: its score-matching loss on %s is %v (not finite: W is too large for these data)", m.Method, data, e.SMLoss))
		}
		if mc, ok := dist.(*expfam.MCMC); ok {
			ll, se, err := logLikMCMC(mc, feat, w, d, y)
			if err != nil {
				return nil, errs.Invalid(fmt.Errorf("model %s on %s: %w", m.Method, data, err))
			}
			e.LogLik, e.LogLikSE = &ll, &se
		} else if ll, ok := logLik(dist, feat, w, d, y); ok {
			e.LogLik = &ll
		}
		out = append(out, e)
	}
	return out, nil
}

// LogZDraws is the number of importance draws of each held-out
// transition's log-partition for a family sampled by MCMC.
const LogZDraws = 2000

// logLikMCMC returns the mean log-likelihood of the targets y under a
// family sampled by MCMC, whose log-partition Z(η_t) of each transition is
// estimated by importance sampling (expfam.MCMC.LogZ, seeded by the
// transition's index, so the value is a fixed function of the data), and
// its Monte Carlo standard error √(Σ_t se_t²)/n. Degenerate importance
// weights at a transition are an error naming it.
func logLikMCMC(mc *expfam.MCMC, feat expfam.Features, w []float64, d *dataset.Transitions, y []float64) (ll, se float64, err error) {
	m, err := expfam.NewModel(mc, feat, w)
	if err != nil {
		return 0, 0, err
	}
	ds, dpsi := d.StateDim, mc.StatDim()
	phi, eta, psi := make([]float64, feat.Dim()), make([]float64, dpsi), make([]float64, dpsi)
	var sum, v float64
	for i := range d.Len() {
		m.Eta(d.State(i), d.Action(i), phi, eta)
		z, err := mc.LogZ(eta, LogZDraws, rand.New(rand.NewPCG(uint64(i), 0x6c6f677a)))
		if err != nil {
			return 0, 0, fmt.Errorf("transition %d: log Z by importance sampling: %w", i+1, err)
		}
		x := y[i*ds : (i+1)*ds]
		sum += expfam.LogDensity(mc, eta, x, z.LogZ, psi)
		v += z.SE * z.SE
	}
	n := float64(d.Len())
	if math.IsNaN(sum) || math.IsInf(sum, 0) {
		return 0, 0, fmt.Errorf("the log-likelihood is %v", sum)
	}
	return sum / n, math.Sqrt(v) / n, nil
}

// logLik returns the mean log-likelihood of the targets y (n × d_s) under
// the model (dist, feat, w), normalised as Model.TabulatedDensity does
// (within about 1e-9 of exact quadrature for a product family); ok is false when a density cannot be
// normalised or is zero at its target.
func logLik(dist expfam.Distribution, feat expfam.Features, w []float64, d *dataset.Transitions, y []float64) (float64, bool) {
	m, err := expfam.NewModel(dist, feat, w)
	if err != nil {
		return 0, false
	}
	var sum float64
	ds := d.StateDim
	for i := range d.Len() {
		f, err := m.TabulatedDensity(d.State(i), d.Action(i))
		if err != nil {
			return 0, false
		}
		p := f(y[i*ds : (i+1)*ds])
		if !(p > 0) || math.IsInf(p, 0) {
			return 0, false
		}
		sum += math.Log(p)
	}
	return sum / float64(d.Len()), true
}
