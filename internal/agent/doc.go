// Package agent implements the model-based agents of the experiment and
// the random sampling shooting (RSS) planner they share.
//
// An agent owns a transition model P_Ŵ (package expfam) and an estimator
// (package estimator). W starts at 0 and is re-estimated at the end of every
// episode on all transitions so far; the estimators' sufficient statistics
// are updated incrementally, transition by transition.
//
//	sm      score matching in the true family (q, psi, phi known)
//	lds     least squares with the Gaussian model s' = W phi + N(0, σ² I)
//	mle     numerical maximum likelihood in the true family (Exp-UCRL's estimator)
//	oracle  the true model, never updated
//
// The planner (SPEC §5): at state s, for each candidate it simulates
// n_rollouts trajectories x_0 = s, x_1, …, x_{τ−1} under the agent's model
// and scores it by the mean of Σ_t r(x_t). In constant mode a candidate is
// one action played at every step (the paper's); in random mode it is a
// random action sequence and the first action of the best is played. Ties go
// to the candidate listed first (the first action of env.actions), so a
// model that cannot tell actions apart always plays the first one.
package agent
