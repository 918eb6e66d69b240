package env

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
)

// LQ is a linear-quadratic problem (env.kind lq): the linear dynamics
//
//	s' = A s + B a + σ ε,  ε ~ N(0, I_{d_s}),
//
// the reward r(s, a) = −(sᵀQs + aᵀRa), actions in a box and never a
// terminal state. Matrices are row-major: A and Q d_s × d_s, B d_s × d_a, R
// d_a × d_a. Its optimal controller is in closed form (package agent's lqr
// agent) as long as the box does not bind.
type LQ struct {
	DS, DA     int
	A, B, Q, R []float64
	Sigma      float64 // σ, the noise's standard deviation per coordinate
}

// LinearQuadratic is implemented by the Dynamics of env.kind lq: the
// problem whose optimum the lqr agent plays.
type LinearQuadratic interface{ LQ() *LQ }

func flatten(m [][]float64) []float64 {
	var out []float64
	for _, r := range m {
		out = append(out, r...)
	}
	return out
}

func newLQ(c *config.Config) (*MDP, error) {
	l := config.Section[LQConfig](c, "env.lq")
	ds, da := len(l.A), c.Env.ActionDim
	lq := &LQ{DS: ds, DA: da, A: flatten(l.A), B: flatten(l.B), Q: flatten(l.Q), R: flatten(l.R), Sigma: l.NoiseStd}
	def := make([]float64, ds)
	in := make([]float64, ds+da)
	for i := range def {
		def[i] = 1 // Gaussian scales: with noise, its σ; without, 1 (score matching is then ridge regression with λ)
		if l.NoiseStd > 0 {
			def[i] = l.NoiseStd
		}
		in[i] = max(math.Abs(c.Env.InitLow), math.Abs(c.Env.InitHigh), 1e-3)
	}
	for j := range da {
		in[ds+j] = max((c.Env.ActionHigh[j]-c.Env.ActionLow[j])/2, 1e-3)
	}
	spec, err := LearnerSpec(c, def, da, in)
	if err != nil {
		return nil, err
	}
	return &MDP{
		Dim:      ds,
		Task:     newLQTask(lq),
		Dynamics: lq,
		Model:    spec,
		Init:     uniformInit(c.Env.InitLow, c.Env.InitHigh),
	}, nil
}

// LQ returns the problem itself.
func (l *LQ) LQ() *LQ { return l }

// mean writes A s + B a into out.
func (l *LQ) mean(s, a, out []float64) {
	for i := range l.DS {
		var v float64
		for j, x := range s[:l.DS] {
			v += l.A[i*l.DS+j] * x
		}
		for j, u := range a[:l.DA] {
			v += l.B[i*l.DA+j] * u
		}
		out[i] = v
	}
}

func (l *LQ) NewSimulator() Simulator { return lqSim{l} }
func (l *LQ) NewMean() Simulator      { return lqMean{l} }

// lqSim draws s' = A s + B a + σ ε (no draw when σ = 0).
type lqSim struct{ *LQ }

func (l lqSim) Step(s, a []float64, rng *rand.Rand, out []float64) {
	l.mean(s, a, out)
	if l.Sigma > 0 {
		for i := range out[:l.DS] {
			out[i] += l.Sigma * rng.NormFloat64()
		}
	}
}

// lqMean is the noise-free step A s + B a.
type lqMean struct{ *LQ }

func (l lqMean) Step(s, a []float64, _ *rand.Rand, out []float64) { l.mean(s, a, out) }

// Deterministic reports that the mean step draws nothing.
func (lqMean) Deterministic() bool { return true }

// Quad returns xᵀ M x for the n × n row-major M, summed as
//
//	v = Σ_i x_i·r_i,  r_i = Σ_j m_ij·x_j,
//
// both sums from index 0 up, each product rounded before it is added (the
// conversions keep a GOAMD64=v3 or arm64 build from fusing them).
func Quad(m []float64, x []float64) float64 {
	n := len(x)
	var v float64
	for i := range n {
		var r float64
		for j := range n {
			r += float64(m[i*n+j] * x[j]) // rounded, never fused: sparseQuad relies on it
		}
		v += float64(x[i] * r)
	}
	return v
}

// sparseQuad is Quad of one fixed matrix that skips its zero entries and
// the rows that hold nothing else (an LQ's Q and R are often diagonal),
// with Quad's bits for every finite x: a sum that starts at +0 and adds
// rounded products is never −0, so adding a ±0 product leaves it as it was
// (a fused a·b + 0 could round a tiny negative product to −0: neither
// fuses). An input with an infinite or NaN entry (where 0·x is NaN) takes
// Quad itself.
type sparseQuad struct {
	m     []float64 // the dense matrix, for non-finite inputs
	rows  []int32   // the rows with a non-zero entry, ascending
	start []int32   // row rows[k]'s entries are cols/vals[start[k]:start[k+1]]
	cols  []int32
	vals  []float64
}

func newSparseQuad(m []float64, n int) sparseQuad {
	q := sparseQuad{m: m, start: []int32{0}}
	for i := range n {
		k := len(q.cols)
		for j, v := range m[i*n : (i+1)*n] {
			if v != 0 {
				q.cols = append(q.cols, int32(j))
				q.vals = append(q.vals, v)
			}
		}
		if len(q.cols) > k {
			q.rows = append(q.rows, int32(i))
			q.start = append(q.start, int32(len(q.cols)))
		}
	}
	return q
}

// at returns xᵀ M x, the bits of Quad(M, x).
func (q *sparseQuad) at(x []float64) float64 {
	for _, xj := range x {
		if xj-xj != 0 { // ±Inf or NaN (finite4's test)
			return Quad(q.m, x)
		}
	}
	var v float64
	for k, i := range q.rows {
		var r float64
		lo, hi := q.start[k], q.start[k+1]
		for e, j := range q.cols[lo:hi] {
			r += float64(q.vals[int(lo)+e] * x[j])
		}
		v += float64(x[i] * r)
	}
	return v
}

// at4 sets out[l] = at(x_l) for four inputs, their sums interleaved (four
// independent chains, where one at a time waits on each addition) with
// each one's operations those of at, so the same bits; an input with an
// infinite or NaN entry takes at.
func (q *sparseQuad) at4(x0, x1, x2, x3 []float64, out *[4]float64) {
	n := len(x0)
	x1, x2, x3 = x1[:n], x2[:n], x3[:n]
	for j := range n {
		if !finite4(x0[j], x1[j], x2[j], x3[j]) {
			out[0], out[1], out[2], out[3] = q.at(x0), q.at(x1), q.at(x2), q.at(x3)
			return
		}
	}
	var v0, v1, v2, v3 float64
	for k, i := range q.rows {
		var r0, r1, r2, r3 float64
		lo, hi := q.start[k], q.start[k+1]
		for e, j := range q.cols[lo:hi] {
			m := q.vals[int(lo)+e]
			r0 += float64(m * x0[j])
			r1 += float64(m * x1[j])
			r2 += float64(m * x2[j])
			r3 += float64(m * x3[j])
		}
		v0 += float64(x0[i] * r0)
		v1 += float64(x1[i] * r1)
		v2 += float64(x2[i] * r2)
		v3 += float64(x3[i] * r3)
	}
	out[0], out[1], out[2], out[3] = v0, v1, v2, v3
}

// finite4 reports whether a, b, c and d are all finite (x − x is 0 for a
// finite x and NaN for ±Inf and NaN).
func finite4(a, b, c, d float64) bool {
	return (a-a)+(b-b)+(c-c)+(d-d) == 0
}

// lqTask is r(s, a) = −(sᵀQs + aᵀRa).
type lqTask struct {
	*LQ
	q, r sparseQuad
}

// newLQTask returns l's task; a pointer, so that a reward does not copy
// the two sparse forms.
func newLQTask(l *LQ) *lqTask {
	return &lqTask{LQ: l, q: newSparseQuad(l.Q, l.DS), r: newSparseQuad(l.R, l.DA)}
}

func (t *lqTask) Reward(s, a []float64) float64 {
	return -(t.q.at(s[:t.DS]) + t.r.at(a[:t.DA]))
}

// Rewards is Reward for a batch of states (env.BatchRewarder), four at a
// time by sparseQuad.at4: the same bits.
func (t *lqTask) Rewards(xs []float64, acts [][]float64, out []float64) {
	ds, da := t.DS, t.DA
	k := 0
	var q, r [4]float64
	for ; k+4 <= len(out); k += 4 {
		s := xs[k*ds : (k+4)*ds]
		t.q.at4(s[:ds], s[ds:2*ds], s[2*ds:3*ds], s[3*ds:], &q)
		t.r.at4(acts[k][:da], acts[k+1][:da], acts[k+2][:da], acts[k+3][:da], &r)
		for l := range 4 {
			out[k+l] = -(q[l] + r[l])
		}
	}
	for ; k < len(out); k++ {
		out[k] = t.Reward(xs[k*ds:(k+1)*ds], acts[k])
	}
}

func (*lqTask) Terminal([]float64) (bool, float64) { return false, 0 }
func (*lqTask) Terminates() bool                   { return false }

// LQConfig is the section env.lq: it configures env.kind lq, s' = A s + B a
// + noise_std·ε, ε ~ N(0, I), r(s, a) = −(sᵀQs + aᵀRa), a in the box of
// env.action_low/high.
type LQConfig struct {
	A        [][]float64 `mapstructure:"a" yaml:"a" doc:"A, d_s × d_s"`
	B        [][]float64 `mapstructure:"b" yaml:"b" doc:"B, d_s × d_a (d_a = env.action_dim)"`
	Q        [][]float64 `mapstructure:"q" yaml:"q" doc:"Q, d_s × d_s, symmetric positive semidefinite"`
	R        [][]float64 `mapstructure:"r" yaml:"r" doc:"R, d_a × d_a, symmetric positive definite"`
	NoiseStd float64     `mapstructure:"noise_std" yaml:"noise_std" doc:"σ: s' = A s + B a + σ·N(0, I)"`
}

// lqKind registers env.kind lq (see env.go's registry). Its d_s is the
// number of rows of env.lq.a, so it declares no fixed Dim.
var lqKind = Kind{Part: config.Part{Name: "lq",
	Doc:     "linear-quadratic control s' = A s + B a + σε, r = −(sᵀQs + aᵀRa), box actions (the lqr agent plays its optimum)",
	Section: "env.lq", Uses: []string{"model", "env.init_low", "env.init_high"}, Validate: validateLQ,
	Defaults: &LQConfig{A: [][]float64{{1}}, B: [][]float64{{1}}, Q: [][]float64{{1}}, R: [][]float64{{0.5}}}},
	Build: newLQ}

// maxLQDim bounds d_s and d_a of env.lq: the lqr agent inverts a d_a × d_a
// matrix per step of the horizon at the start of a trial.
const maxLQDim = 100

// validateLQ checks the shapes and values of env.lq against env.action_dim
// and the box.
func validateLQ(c *config.Config, bad config.Bad) {
	l := config.Section[LQConfig](c, "env.lq")
	if c.Env.ActionSpace != "box" {
		bad("env.action_space", "env.kind lq needs box actions (env.action_space: box), got %s", c.Env.ActionSpace)
	}
	if !(l.NoiseStd >= 0 && l.NoiseStd <= 1e3) {
		bad("env.lq.noise_std", "must lie in [0, 1000], got %v", l.NoiseStd)
	}
	ds, da := len(l.A), c.Env.ActionDim
	if ds < 1 || ds > maxLQDim {
		bad("env.lq.a", "must have 1 to %d rows (d_s), got %d", maxLQDim, ds)
		return
	}
	if da > maxLQDim {
		bad("env.action_dim", "must be <= %d with env.kind lq, got %d", maxLQDim, da)
		return
	}
	shape := func(key string, m [][]float64, rows, cols int) bool {
		if len(m) != rows {
			bad(key, "must have %d rows, got %d", rows, len(m))
			return false
		}
		for i, r := range m {
			if len(r) != cols {
				bad(key, "row %d must have %d entries, got %d", i, cols, len(r))
				return false
			}
			if slices.ContainsFunc(r, func(v float64) bool { return !finite(v) || math.Abs(v) > 1e6 }) {
				bad(key, "must hold finite numbers with |value| <= 1e6, got %v", r)
				return false
			}
		}
		return true
	}
	shape("env.lq.a", l.A, ds, ds)
	shape("env.lq.b", l.B, ds, da)
	for _, m := range []struct {
		key  string
		m    [][]float64
		n    int
		what string
	}{{"env.lq.q", l.Q, ds, "positive semidefinite"}, {"env.lq.r", l.R, da, "positive definite"}} {
		if !shape(m.key, m.m, m.n, m.n) {
			continue
		}
		sym := true
		for i := range m.n {
			for j := range i {
				sym = sym && m.m[i][j] == m.m[j][i]
			}
		}
		if !sym {
			bad(m.key, "must be symmetric")
			continue
		}
		if ok := cholesky(m.m, m.key == "env.lq.q"); !ok {
			bad(m.key, "must be %s", m.what)
		}
	}
}

// cholesky reports whether the symmetric matrix m is positive definite (or,
// with semi, positive semidefinite up to a relative 1e-12 of its diagonal)
// by attempting its Cholesky factorisation.
func cholesky(m [][]float64, semi bool) bool {
	n := len(m)
	var scale float64
	for i := range n {
		scale = max(scale, math.Abs(m[i][i]))
	}
	tol := 0.0
	if semi {
		tol = 1e-12 * max(scale, 1)
	}
	l := make([]float64, n*n)
	for j := range n {
		d := m[j][j]
		for k := range j {
			d -= l[j*n+k] * l[j*n+k]
		}
		if d < -tol || (!semi && d <= 0) {
			return false
		}
		if d <= tol {
			// A zero pivot of a semidefinite matrix: its column must vanish.
			for i := j + 1; i < n; i++ {
				v := m[i][j]
				for k := range j {
					v -= l[i*n+k] * l[j*n+k]
				}
				if math.Abs(v) > tol {
					return false
				}
			}
			continue
		}
		d = math.Sqrt(d)
		l[j*n+j] = d
		for i := j + 1; i < n; i++ {
			v := m[i][j]
			for k := range j {
				v -= l[i*n+k] * l[j*n+k]
			}
			l[i*n+j] = v / d
		}
	}
	return true
}
