package expfam

import (
	"fmt"
	"strings"

	"github.com/smrl-dev/smrl/internal/expr"
)

// JointExpr is a joint family written as expressions of x0, …, x_{d−1}
// (package expr): log q(x) = LogQ and psi(x) = Psi, one expression per
// statistic, each of which may couple the coordinates. Every derivative
// score matching and the chains need is exact, from the expressions'
// tapes: ∂_i log q, ∂_i psi_k and ∂_i² psi_k for every coordinate i
// (Program.EvalD in x_i), skipping the coordinates an expression does not
// name. It lives on R^d (no support).
type JointExpr struct {
	d      int
	logQ   *expr.Program
	lqUses []int // the coordinates log q names
	psi    []*expr.Program
	uses   [][]int // uses[k]: the coordinates psi_k names
	name   string
}

// NewJointExpr compiles a joint family of d coordinates.
func NewJointExpr(d int, logQ string, psi []string) (*JointExpr, error) {
	if d < 1 {
		return nil, fmt.Errorf("dim: %w: must be >= 1, got %d", ErrBadFamily, d)
	}
	if len(psi) == 0 {
		return nil, fmt.Errorf("psi: %w: at least one statistic needed", ErrBadFamily)
	}
	vars := make([]string, d)
	for i := range vars {
		vars[i] = fmt.Sprintf("x%d", i)
	}
	j := &JointExpr{d: d}
	lq, err := expr.Parse(logQ, vars)
	if err != nil {
		return nil, fmt.Errorf("log_q: %w", err)
	}
	if lq.Bool() {
		return nil, fmt.Errorf("log_q: %w: %q is a comparison, want a number", ErrBadFamily, logQ)
	}
	j.logQ, j.lqUses = lq.Compile(), usedVars(lq, d)
	for k, src := range psi {
		e, err := expr.Parse(src, vars)
		if err != nil {
			return nil, fmt.Errorf("psi[%d]: %w", k, err)
		}
		if e.Bool() {
			return nil, fmt.Errorf("psi[%d]: %w: %q is a comparison, want a number", k, ErrBadFamily, src)
		}
		u := usedVars(e, d)
		if len(u) == 0 {
			return nil, fmt.Errorf("psi[%d]: %w: %q names no coordinate x0, …, x%d: a constant statistic has no natural parameter", k, ErrBadFamily, src, d-1)
		}
		j.psi = append(j.psi, e.Compile())
		j.uses = append(j.uses, u)
	}
	q := make([]string, len(psi))
	for k, s := range psi {
		q[k] = fmt.Sprintf("%q", s)
	}
	j.name = fmt.Sprintf("expression(dim=%d, log_q=%q, psi=[%s])", d, logQ, strings.Join(q, ", "))
	return j, nil
}

// usedVars returns the coordinates e names.
func usedVars(e *expr.Expr, d int) []int {
	var u []int
	for i := range d {
		if e.Uses(i) {
			u = append(u, i)
		}
	}
	return u
}

func (j *JointExpr) String() string { return j.name }
func (j *JointExpr) StateDim() int  { return j.d }
func (j *JointExpr) StatDim() int   { return len(j.psi) }

func (j *JointExpr) Psi(x, out []float64) {
	for k, p := range j.psi {
		out[k] = p.Eval(x[:j.d])
	}
}

func (j *JointExpr) LogBase(x []float64) float64 { return j.logQ.Eval(x[:j.d]) }

// GradLogBase writes ∂_i log q for every coordinate (0 for those log q
// does not name).
func (j *JointExpr) GradLogBase(x, grad []float64) float64 {
	x = x[:j.d]
	clear(grad[:j.d])
	if len(j.lqUses) == 0 {
		return j.logQ.Eval(x)
	}
	var v float64
	for _, i := range j.lqUses {
		v, grad[i], _ = j.logQ.EvalD(x, i)
	}
	return v
}

// PsiJac writes psi and jac[i·d_psi + k] = ∂_i psi_k.
func (j *JointExpr) PsiJac(x, psi, jac []float64) {
	x = x[:j.d]
	dpsi := len(j.psi)
	clear(jac[:j.d*dpsi])
	for k, p := range j.psi {
		for _, i := range j.uses[k] {
			psi[k], jac[i*dpsi+k], _ = p.EvalD(x, i)
		}
	}
}

// ScoreTerms writes the Jacobian and ξ_k = Σ_i ∂_i log q ∂_i psi_k +
// ∂_i² psi_k. It uses xi's first d entries as scratch only when d_psi ≥
// d; otherwise it evaluates ∂_i log q per use.
func (j *JointExpr) ScoreTerms(x, jac, xi []float64) {
	x = x[:j.d]
	dpsi := len(j.psi)
	clear(jac[:j.d*dpsi])
	for k, p := range j.psi {
		var s float64
		for _, i := range j.uses[k] {
			_, d1, d2 := p.EvalD(x, i)
			jac[i*dpsi+k] = d1
			s += d2
		}
		xi[k] = s
	}
	for _, i := range j.lqUses {
		_, dl, _ := j.logQ.EvalD(x, i)
		row := jac[i*dpsi : (i+1)*dpsi]
		for k, a := range row {
			xi[k] += dl * a
		}
	}
}
