package expfam

// Joint is a Family whose base measure has a gradient: what MCMC needs.
type Joint interface {
	Family
	// GradLogBase writes ∇ log q(x) (len d_s) into grad and returns log q(x).
	GradLogBase(x, grad []float64) float64
	// PsiJac writes psi(x) (len d_psi) and jac[i*d_psi+k] = ∂_i psi_k(x).
	PsiJac(x, psi, jac []float64)
}
