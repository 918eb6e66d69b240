package agent

import (
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/testutil"
	"gonum.org/v1/gonum/mat"
)

// The Riccati recursion against batch least squares: for a 2-D double
// integrator over n = 6 steps, stacking x_t = A^t s + Σ_{j<t} A^{t−1−j} B a_j
// (t = 0…n−1) makes the cost Σ_t x_tᵀQx_t + a_tᵀRa_t a quadratic
// uᵀHu + 2uᵀG s + sᵀF s in u = (a_0…a_{n−1}), minimised at u* = −H⁻¹G s
// with the least cost sᵀ(F − GᵀH⁻¹G)s. Its first block must be −K_n s and
// the least cost sᵀP_n s, for every s (checked on the unit vectors, i.e.
// as matrices).
func TestRiccatiMatchesBatchLeastSquares(t *testing.T) {
	l := &env.LQ{DS: 2, DA: 1, A: []float64{1, 0.1, 0, 1}, B: []float64{0.005, 0.1},
		Q: []float64{1, 0.2, 0.2, 0.5}, R: []float64{0.3}}
	const n = 6
	gains, costs, err := RiccatiGains(l, n)
	if err != nil {
		t.Fatal(err)
	}
	a := mat.NewDense(2, 2, l.A)
	b := mat.NewDense(2, 1, l.B)
	q := mat.NewDense(2, 2, l.Q)
	// Phi (2n × 2) stacks A^t; Gam (2n × n) the responses to the actions.
	phi := mat.NewDense(2*n, 2, nil)
	gam := mat.NewDense(2*n, n, nil)
	pow := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	for tt := range n {
		phi.Slice(2*tt, 2*tt+2, 0, 2).(*mat.Dense).Copy(pow)
		next := mat.NewDense(2, 2, nil)
		next.Mul(a, pow)
		pow = next
		for j := 0; j < tt; j++ {
			// A^{t−1−j} B
			m := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
			for range tt - 1 - j {
				var x mat.Dense
				x.Mul(a, m)
				m = &x
			}
			var col mat.Dense
			col.Mul(m, b)
			gam.Slice(2*tt, 2*tt+2, j, j+1).(*mat.Dense).Copy(&col)
		}
	}
	qbar := mat.NewDense(2*n, 2*n, nil)
	rbar := mat.NewDense(n, n, nil)
	for tt := range n {
		qbar.Slice(2*tt, 2*tt+2, 2*tt, 2*tt+2).(*mat.Dense).Copy(q)
		rbar.Set(tt, tt, l.R[0])
	}
	var h, g, f, qg, qp mat.Dense
	qg.Mul(qbar, gam)
	h.Mul(gam.T(), &qg)
	h.Add(&h, rbar)
	qp.Mul(qbar, phi)
	g.Mul(gam.T(), &qp)
	f.Mul(phi.T(), &qp)
	var hinvG mat.Dense
	if err := hinvG.Solve(&h, &g); err != nil {
		t.Fatal(err)
	}
	var least mat.Dense
	least.Mul(g.T(), &hinvG)
	least.Sub(&f, &least)
	for j := range 2 {
		// u*(e_j) = −H⁻¹G e_j; its first action is −K_n e_j.
		if got, want := -hinvG.At(0, j), -gains[n-1][j]; !testutil.AbsWithin(got, want, 1e-10) {
			t.Errorf("first action at e_%d: batch %v, Riccati %v", j, got, want)
		}
		for i := range 2 {
			if got, want := least.At(i, j), costs[n-1][i*2+j]; !testutil.AbsWithin(got, want, 1e-10) {
				t.Errorf("least cost matrix [%d][%d]: batch %v, Riccati P_n %v", i, j, got, want)
			}
		}
	}
	// The last action (one step to go) is 0: nothing follows it.
	if gains[0][0] != 0 || gains[0][1] != 0 {
		t.Errorf("K_1 = %v, want 0", gains[0])
	}
}

// The lqr agent plays −K_k s with k = H − h steps to go, clamped to the box
// where it binds, and refuses a truth that is not linear-quadratic.
func TestLQRControl(t *testing.T) {
	l := &env.LQ{DS: 1, DA: 1, A: []float64{1}, B: []float64{1}, Q: []float64{1}, R: []float64{0.5}}
	box := &env.Box{Low: []float64{-0.5}, High: []float64{0.5}}
	c, err := newLQR(l, box, 30)
	if err != nil {
		t.Fatal(err)
	}
	gains, _, err := RiccatiGains(l, 30)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 1)
	for _, tc := range []struct {
		s    float64
		h    int
		want float64
	}{
		{0.3, 0, -gains[29][0] * 0.3}, // 30 steps to go: K ≈ 0.732
		{0.3, 28, -gains[1][0] * 0.3}, // 2 steps to go: K_2 = 1/1.5
		{0.3, 29, 0},                  // the last action costs and changes nothing scored
		{1, 0, -0.5},                  // −0.732 is clamped to the box
		{-1, 10, 0.5},
	} {
		c.Control([]float64{tc.s}, tc.h, out)
		testutil.AbsClosef(t, out[0], tc.want, 1e-15, "s = %v, h = %d: a = %v, want %v", tc.s, tc.h, out[0], tc.want)
	}
	if k2 := gains[1][0]; !testutil.AbsWithin(k2, 1/1.5, 1e-15) {
		t.Errorf("K_2 = %v, want P_1 B/(R + P_1 B²) = 1/1.5", k2)
	}
	if _, err := newLQR(nil, box, 30); err == nil {
		t.Error("lqr accepted a truth that is not linear-quadratic")
	}
}
