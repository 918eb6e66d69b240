// Package mcmc samples unnormalised densities on R^d by Markov chain Monte
// Carlo and estimates their normalisers: the sampler behind joint
// exponential families, whose log-partition does not factor over
// coordinates.
//
// A Target gives log p(x) up to a constant and its gradient. A Chain runs
// one of two gradient samplers on it:
//
//   - Hamiltonian Monte Carlo: momentum p ~ N(0, M), H(x, p) = −log p(x) +
//     ½ pᵀM⁻¹p, L leapfrog steps of ε (jittered by ±10% per transition),
//     accepted with probability min(1, exp(H(x,p) − H(x′,p′))).
//   - MALA: x′ = x + (ε²/2) M⁻¹∇log p(x) + ε M^{−1/2} z, accepted by the
//     Metropolis–Hastings ratio with the Langevin proposal densities.
//
// In warm-up ε adapts by Hoffman & Gelman's dual averaging toward a mean
// acceptance probability of 0.8 (HMC) or 0.574 (MALA), and optionally a
// diagonal M adapts to the marginal variances. A transition is divergent
// when the log density or gradient is NaN or +Inf, or the energy error
// H(x′,p′) − H(x,p) (for MALA minus the log acceptance ratio) exceeds
// Settings.MaxEnergyError; after warm-up that is an error (a
// DivergenceError wrapping ErrDiverged, holding the states), in warm-up a
// rejection, unless more than half of warm-up diverged. −Inf is outside the
// support: a plain rejection.
//
// Every chain draws from its own rand.Source, so independent chains run
// on any number of goroutines (RunChains, Draws) give the same draws.
// Transitions allocate nothing. Chains that share one adaptation take a
// pilot chain's step size and mass (SetStep); a chain whose target moved
// (a persistent chain of a stochastic approximation) recomputes its state's
// density (Refresh).
//
// Diagnostics: ESS (Stan's multi-chain effective sample size with Geyer's
// initial monotone sequence), SplitRhat (split-R̂), ThinToESS (thin until
// ESS >= n/2). Normalisers: ImportanceLogZ (a Gaussian proposal; log Ẑ =
// log mean w, standard error sd(w)/(√N mean w) by the delta method,
// ErrDegenerate when the weights' ESS (Σw)²/Σw² is below the caller's
// bound) and AnnealedLogZ (Neal's annealed importance sampling from the
// Gaussian through (1−β) log q + β log p, β_k = (k/K)⁴, one transition per
// temperature; E[w] = Z for any K).
//
// Preconditions: a Target's gradient is exact (a wrong one biases nothing
// in MALA's and HMC's acceptance test but wrecks their efficiency, and the
// tests check every test target's against finite differences); a Target
// keeps buffers, so each concurrently running chain has its own.
//
// The package is a leaf: it imports the standard library and gonum only.
package mcmc
