// Package estimate implements smrl estimate: it fits W of the configured
// transition family from a data set of transitions with the score-matching
// (sm), least-squares (lds) and maximum-likelihood (mle) estimators of
// package estimator, and reports each estimate, its Frobenius distance from
// the true W0 when that is known, and the time the fit took.
//
// The data come either from a CSV file (package dataset) or are drawn from
// the configured true model: n i.i.d. transitions with
// s ~ Unif[init_low, init_high]^{d_s}, a uniform over env.actions and
// s' ~ P_W0(·|s, a). The features of every estimator are those of the
// config, phi = phi(s, a).
//
// Sweep draws fresh data for every sample size n and repeat r, from a random
// stream that depends on (seed, n, r) only, fits every method and records
// |Ŵ − W0|_F. The jobs run on a worker pool; results are collected and put
// in canonical order (method, then n, then repeat), so the output does not
// depend on the number of workers.
package estimate
