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
// V = C ⊗ G), d_psi diagonal
// blocks when C is diagonal (product families), and the upper triangle of
// every block otherwise. Blocks that take the same update at every
// transition (a product of Gaussian coordinates of one σ) share one storage
// and one factorisation until an update parts them (SM.alias). Solving costs one or d_psi
// Cholesky factorisations of d_phi×d_phi matrices in the structured cases.
//
// Generalised (weighted) score matching (Hyvärinen 2007; Yu, Drton &
// Shojaie 2019; Liu, Kanamori & Williams 2019). For a product family, take
// one coordinate x = s'_i with density p(x) ∝ q(x) exp(<η, ψ(x)>) on an
// interval (lo, hi), η = W_i phi (W_i the m×d_phi rows of W of the
// coordinate, ψ ∈ R^m), and a weight h(x) >= 0 with h p → 0 at lo and hi
// and h = 0 at the kinks of ψ. The weighted Fisher divergence
//
//	J(η) = ½ E_p0[ h (∂ log p_η − ∂ log p0)² ]
//
// integrates by parts (the boundary terms h p0 ∂ log p_η vanish at lo, hi,
// and at a kink h ∂ log p_η is continuous because h = 0 there) into
//
//	J(η) = E_p0[ ½ h (∂ log p_η)² + ∂(h ∂ log p_η) ] + const
//	     = E_p0[ ½ h (<ψ', η> + (log q)')² + h'(<ψ', η> + (log q)') + h(<ψ”, η> + (log q)”) ] + const,
//
// where ψ” is the function part of ψ” only: its δ at a kink c is multiplied
// by h(c) = 0. Dropping terms free of η,
//
//	J(η) = ½ ηᵀ E[h g gᵀ] η + ηᵀ E[h ξ + h' g] + const,  g = ψ'(x) ∈ R^m,  ξ = (log q)' g + ψ”,
//
// which stays quadratic in W. Summing over coordinates and transitions
// (η_t = W phi_t, so the coordinate's block of vec(W) enters as
// <g, W_i phi> = (g ⊗ phi)ᵀ vec(W_i)):
//
//	V_n = Σ_t blockdiag_i( h_i (g_i ⊗ phi_t)(g_i ⊗ phi_t)ᵀ )       (d×d, blocks (m_i d_phi)²)
//	b_n = Σ_t [ (h_i ξ_i + h_i' g_i) ⊗ phi_t ]_i                      (d)
//	vec(Ŵ) = −(V_n + λI)⁻¹ b_n,
//
// with h_i, h_i', g_i, ξ_i evaluated at s'_{t,i}. h ≡ 1 is plain score
// matching. The block structure, the cost (one extra weight evaluation per
// coordinate and transition) and the closed-form solve are those of plain
// SM; the confidence set and posterior sampling use this weighted V_n.
// Weights are expfam.Weight values (SM.SetWeights).
//
// Why weight. The ReLU statistic ψ = [x, relu(x)] has ψ” ∋ J δ(x), so plain
// SM needs E[p(0 | s, a) phi], which a kernel (EstimateKinks) estimates
// with an O(bandwidth²) bias that no n removes; a weight vanishing at 0
// (expfam.ReLU.DefaultWeight, min(|x|/(C s), 1)) removes the term and
// leaves a consistent estimator. On a half-line or an interval, p0 does not
// vanish at the ends (exponential, beta with η > 0), the boundary terms of
// plain SM do not drop and it is inconsistent; the capped distance to the
// boundary (expfam.DistWeight) restores consistency.
//
// Information floor (floor.go, SM.SetFloor). Along a direction u of a
// block of V_n the estimate is the ratio −u·b_n / uᵀV_n u; where ψ'
// vanishes on the data both sums are a few tiny, heavy-tailed terms and
// the ratio can be far off (issue 35: 26 against a true 0.64 after seven
// such transitions). With a floor m > 0 the eigenvalues of V_b + λI below
// τ_b = m·tr(V_b)/(n d_b), the information of m average transitions, are
// raised to τ_b in the point estimate; blocks above the floor, and blocks
// whose C(s') never varied, keep the plain solve bit for bit, and the
// precision of the fit stays V_n + λI. τ_b stays bounded while μ_min(V_b)
// grows like n, so the floor stops acting and the estimator is consistent.
//
// LDS is ridge least squares of s' on phi, Ŵ = Y (G + λI)⁻¹ with
// G = Σ phi phiᵀ and Y = Σ s' phiᵀ: the LDS baseline of the paper. For the
// Gaussian family SM equals LDS with λ' = λσ⁴ (Proposition "equiv").
//
// MLE maximises Σ_t <psi(s'_t), W phi_t> − Z(W phi_t) − λ/2 |W|_F² by
// Newton's method for separable families, with Z and its derivatives from
// the family's quadrature (the Exp-UCRL estimator). MCMCMLE maximises the
// same for a joint family whose Z does not factor (expfam.Joint): by
// stochastic approximation with E_η[psi] from persistent Markov chains
// (package mcmc), Fisher-preconditioned steps, Polyak averaging and a
// stopping rule on the gradient's Monte Carlo error (mle_mcmc.go,
// docs/mcmc.md).
//
// Standard errors (se.go): SM.Sandwich gives the diagonal of the sandwich
// A⁻¹ (Σ_t g_t g_tᵀ) A⁻¹, A = V_n + λI, g_t = V_t ŵ + b_t = r_t ⊗ phi_t with
// r_t = C(s'_t) Ŵ phi_t + ξ(s'_t); MLE.Sandwich the same with the score
// g_t = (psi − E psi) ⊗ phi_t and A the observed information, whose inverse
// is Fit.InverseDiag. Cross-validation (cv.go): CrossValidate scores a λ
// grid by K-fold held-out SM loss Σ_{t in fold} (½ ŵᵀ V_t ŵ + b_tᵀ ŵ) from
// per-fold sums of V and b. Both use SM's per-transition terms (terms,
// residual), the same as Add. CrossValidateLDS scores LDS by the SM loss
// of its Gaussian model, Σ_i σ_i⁻⁴ (½ ŵ_iᵀ G ŵ_i − ŵ_i·Y_i) from per-fold
// sums of G and Y, and MLE.CrossValidate the MLE by held-out negative
// log-likelihood Σ_t Z(Ŵ phi_t) − <psi(s'_t), Ŵ phi_t>, a Newton fit per
// (fold, λ); all three share one fold rule (scoreGrid): contiguous folds
// in order, the loss of a λ the sum over folds divided by n.
//
// Fit carries the factorised precision P = S (V + λI) of the estimate (S
// scales rows: 1 for SM and MLE, 1/σ² for the LDS fit of FitNoise), so the
// confidence set |vec(W − Ŵ)|_P ≤ β of the paper's eq. (conf-set) can be
// evaluated and sampled; BetaTheory gives its radius as the paper's proof
// establishes it, with Constants derived for Gaussian models.
package estimator
