// Package expfam implements conditional exponential-family transition models
//
//	P_W(s' | s, a) = q(s') · exp( <psi(s'), W phi(s, a)> − Z(W phi(s, a)) )
//
// with state s, s' ∈ R^{d_s}, sufficient statistic psi: R^{d_s} → R^{d_psi},
// features phi: S×A → R^{d_phi}, base measure q and parameter
// W ∈ R^{d_psi×d_phi}. The natural parameter of the distribution of s' is
// η = W phi(s, a) ∈ R^{d_psi}; Z(η) = log ∫ q(x) exp(<psi(x), η>) dx is the
// log-partition function.
//
// Shapes and conventions:
//   - W is stored row-major: W[k*d_phi+j] = W_{kj}; vec(W) is that slice.
//   - A Jacobian of psi is stored jac[i*d_psi+k] = ∂psi_k/∂x_i.
//
// Families:
//   - Product families built from a Scalar family (psi_k(x) = ψ(x_k),
//     q(x) = Π q1(x_k), d_psi = d_s): the paper's custom-sin family
//     q(x) = exp(−|x|^α/α), ψ(x) = sin(P x), and the appendix's 1-D
//     densities. Their normalisation, moments and sampling are computed
//     by Gauss–Legendre quadrature in log space on a support that adapts to
//     η, so |η| in the hundreds neither overflows nor underflows (tested to 200).
//   - Families written as expressions of x (exprfam.go, package expr): log q
//     and ψ_1, …, ψ_m with exact derivatives from the expression tape, on the
//     real line or a support [lo, hi] (then score matching's terms carry
//     the weight h of generalised score matching, see exprFam.Weight). One
//     statistic is a Scalar (tabulated like custom-sin); more are an
//     ExprCoord, normalised and sampled exactly at each η by the quadrature.
//   - The Gaussian family q(x) ∝ exp(−|x|²/(2σ²)), psi(x) = x/σ², for which
//     s' ~ N(W phi, σ² I) and Z(η) = |η|²/(2σ²) + (d/2) log(2πσ²) in closed form.
//   - Products of per-coordinate families (Coords of Coord): the Gaussian,
//     the ReLU families (kinked statistic, relu.go) and the families on a
//     half-line or an interval (bounded.go: exponential, gamma, beta,
//     truncated Gaussian), all with closed-form log-partition functions,
//     cumulants and exact samplers.
//
// Score-matching weights (weight.go): a Coord may report its support
// (Supported) and a default weight h(x) >= 0 (Weighted) vanishing at the
// kinks of its statistic and the ends of its support, which makes
// generalised score matching consistent (package estimator).
//
// Every derivative (∂ψ, ∂²ψ, ∂ log q) is analytic; tests check each against
// central finite differences.
//
// Sampling uses the inverse CDF. A Table tabulates, per scalar family, the
// quantile function Q(u; η) on a grid of η (step 1/32) and u (1024 cells),
// lazily and safely for concurrent use; a draw is one uniform and a bilinear
// interpolation. Its distance from the exact distribution is bounded in
// Kolmogorov distance (see Table.MaxCDFError); η outside the table's range
// falls back to the exact per-η inversion.
package expfam
