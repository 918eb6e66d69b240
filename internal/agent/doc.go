// Package agent implements the model-based agents of the experiment and
// the planners they share: random sampling shooting (RSS, the paper's), the
// cross-entropy method (CEM, with iCEM's coloured noise) and MPPI.
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
//	lqr     no model and no planner: the finite-horizon Riccati controller
//	        of a known linear-quadratic problem (env.kind lq; lqr.go)
//
// Each estimator is registered once (registry.go: an Estimator in sm.go,
// lds.go, mle.go and a line in builtinEstimators), and from that
// registration come its agents, smrl estimate's method, the memory bound
// and the theory β's constants; the oracle and lqr register an AgentKind,
// the oracle declaring itself the regret baseline (config.IsBaseline).
//
// These plan greedily with Ŵ (certainty equivalence), as the paper's
// experiment did. Each estimator also has two variants that plan with the
// confidence set of the paper's algorithm SMRL,
//
//	W_k = {W : |vec(W − Ŵ_k)|_{A_k} ≤ β_k},
//
// where A_k is the precision matrix of the estimator's fit (estimator.Fit:
// SM V_n + λI; MLE the observed information plus λI; LDS (G + λI)/σ² per
// row, the precision of its estimate under its own model with σ =
// lds.sigma) and β_k is config confidence.beta: "practical", β_k =
// c·sqrt(log det(V_k/λ + I) + 2 log(1/δ)), or "theory", the paper's eq.
// (conf-set) as its proof gives it (estimator.BetaTheory), with constants
// from the config or derived from the agent's model (theoryConstants).
// Before any data the set is the prior {|vec(W)|_{λI} ≤ β_1}, so these
// agents need λ > 0.
//
//	sm-ucb, lds-ucb, mle-ucb  optimism by sampled models. Each episode draws
//	    M parameters on the boundary of W_k ∩ B (B the ball below) plus Ŵ_k
//	    itself; with confidence.choice = episode (the default) each candidate
//	    is scored at s_1 (value lookahead: Planner.Optimistic, the planner's
//	    τ-step value under the candidate; value rollout: SimulateEpisode, one
//	    H-step episode under it), all candidates on one noise stream, and the
//	    whole episode is planned with the best. This stands in for SMRL's
//	    line "π^k = argmax_π max_{W ∈ W_k} V^π_W(s_1)", restricted to M+1
//	    models and the planner's policies, and scored by the planner's
//	    lookahead rather than the H-step optimal value. With choice = step
//	    the planner plays, at every step, the action of the best
//	    (candidate, action) pair. mle-ucb is the Exp-UCRL-style agent.
//	sm-ps, lds-ps, mle-ps  posterior sampling: each episode plans with one
//	    draw of N(Ŵ_k, ν² A_k⁻¹) truncated to B.
//
// Sampled parameters are kept in the ball B = {|W|_F ≤ max(b_star, |Ŵ_k|_F)}
// (b_star is the paper's known bound on |W0|_F) by rejection with at most
// maxTries tries per draw and a stated fallback (BeginEpisode documents the
// law). This matters in the first episodes, when the radius in unexplored
// directions is β/√λ (245·c with the paper's λ = 1e-4): it keeps |η| =
// |W phi| moderate, where the sampler is tabulated. Agent.Accept records the
// fraction of draws that fell in B. β = 0 (or ν = 0) makes a variant its
// greedy agent exactly. All draws come from the rng the runner passes to
// BeginEpisode (the trial's planner stream), so results do not depend on
// the number of workers.
//
// Planning (SPEC §5). A Planner wraps a Method (planner.kind: rss, cem,
// mppi; one file each, registered in methods) and the objective they all
// maximise, Rollouts.Value: at state s, the mean over n_rollouts rollouts
// x_0 = s, x_1, …, x_{τ−1} under the agent's model of Σ_t r(x_t, a_t), a
// terminal state ending a rollout with its terminal reward. Every method
// returns the action to play and its value estimate, the highest value
// among the sequences it evaluated, which the optimistic agents compare
// across candidate models (Planner.Optimistic). CEM and MPPI warm-start each
// decision from the previous plan shifted by one step (Planner.Act commits
// it; Planner.Reset at the start of an episode forgets it).
//
// RSS: in constant mode a candidate is one action played at every step
// (the paper's); in random mode it is a random action sequence and the
// first action of the best is played. Ties go to the candidate listed
// first (the first action of env.actions), so a model that cannot tell
// actions apart always plays the first one (with
// planner.common_random_numbers, also a model that is the same for every
// action, such as W = 0 with per-action features). In random mode over a
// discrete set, planner.tie_break vote or mean chooses among equally valued
// sequences by their first actions instead (rss.go).
//
// Speed without other values: Rollouts.Value has specialised loops for
// the paper's models (rollout_fast.go) and for Gaussian models
// (rollout_gauss.go), bit-identical to the generic loop; a task that is an
// env.Survival is scored by its closed form; and a stream the planner is
// told the PCG of (Planner.BindSource, as the runner does) is drawn from
// through that PCG directly, with rand.Rand's values (draw.go).
package agent
