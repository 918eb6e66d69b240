// Package estimator fits W of a conditional exponential family
// P_W(s'|s,a) = q(s') exp(<psi(s'), W phi(s,a)> − Z) from transitions.
//
// Score matching (SM, the paper's Theorem "sm-loss"):
//
//	V_n = Σ_t C(s'_t) ⊗ phi_t phi_tᵀ,  C(x) = Σ_i ∂_i psi(x) ∂_i psi(x)ᵀ   (d×d, d = d_psi·d_phi)
//	b_n = Σ_t ξ(s'_t) ⊗ phi_t,        ξ(x) = Σ_i ∂_i log q(x) ∂_i psi(x) + ∂_i² psi(x)
//	vec(Ŵ) = −(V_n + λI)⁻¹ b_n
//
// with the row-major vec of package expfam: vec(W)[k·d_phi+j] = W_kj. V_n is
// never formed from an (n, d, d_psi) tensor. SM accumulates only the blocks
// V_kl = Σ_t C_t[k,l] phi_t phi_tᵀ that can be non-zero: one shared
// d_phi×d_phi Gram matrix when C is constant (the Gaussian family:
// V = C ⊗ G), d_psi diagonal blocks when C is diagonal (product families),
// and the upper triangle of every block otherwise. Solving costs one or d_psi
// Cholesky factorisations of d_phi×d_phi matrices in the structured cases.
//
// LDS is ridge least squares of s' on phi, Ŵ = Y (G + λI)⁻¹ with
// G = Σ phi phiᵀ and Y = Σ s' phiᵀ: the LDS baseline of the paper. For the
// Gaussian family SM equals LDS with λ' = λσ⁴ (Proposition "equiv").
//
// MLE maximises Σ_t <psi(s'_t), W phi_t> − Z(W phi_t) − λ/2 |W|_F² by
// Newton's method for separable families, with Z and its derivatives from
// the family's quadrature (the Exp-UCRL estimator).
//
// Standard errors (se.go): SM.Sandwich gives the diagonal of the sandwich
// A⁻¹ (Σ_t g_t g_tᵀ) A⁻¹, A = V_n + λI, g_t = V_t ŵ + b_t = r_t ⊗ phi_t with
// r_t = C(s'_t) Ŵ phi_t + ξ(s'_t); MLE.Sandwich the same with the score
// g_t = (psi − E psi) ⊗ phi_t and A the observed information, whose inverse
// is Fit.InverseDiag. Cross-validation (cv.go): CrossValidate scores a λ
// grid by K-fold held-out SM loss Σ_{t in fold} (½ ŵᵀ V_t ŵ + b_tᵀ ŵ) from
// per-fold sums of V and b. Both use SM's per-transition terms (terms,
// residual), the same as Add.
//
// Fit carries the factorised precision P = S (V + λI) of the estimate (S
// scales rows: 1 for SM and MLE, 1/σ² for the LDS fit of FitNoise), so the
// confidence set |vec(W − Ŵ)|_P ≤ β of the paper's eq. (conf-set) can be
// evaluated and sampled; BetaTheory gives its radius as the paper's proof
// establishes it, with Constants derived for Gaussian models.
package estimator
