// Package aggregate computes the aggregate metrics of Agarwal et al.
// (NeurIPS 2021, "Deep RL at the edge of the statistical precipice", the
// rliable library) from the per-seed scores of a run or of a sweep, with
// stratified percentile-bootstrap intervals, and writes them as the files
//
//	aggregate.csv    agent,metric,value,lo,hi
//	improvement.csv  agent_x,agent_y,probability,lo,hi
//	profile.csv      agent,tau,fraction,lo,hi
//
// A run is one stratum; a sweep's aggregate over its points has one
// stratum per point. The score of a (stratum, agent, seed) is the seed's
// mean return per episode (stats.score: mean) or its mean return over the
// last stats.final_episodes episodes (final). With x the pooled scores of an
// agent over every stratum and seed (N values):
//
//	mean            Σ x / N
//	median          the middle value (the mean of the two middle ones for even N)
//	iqm             the mean of the middle 50%: scipy.stats.trim_mean(x, 0.25),
//	                dropping ⌊0.25·N⌋ values from each end of the sorted x
//	optimality_gap  mean of max(o − x, 0) over the seeds, o the oracle's score
//	                on the same stratum and seed (written when the oracle ran)
//
// The probability of improvement of X over Y is the mean over strata of
// P(X > Y) + ½ P(X = Y) over all N_X·N_Y pairs of their seeds (rliable's
// definition); the performance profile of an agent is the fraction of its
// runs with score > τ on a grid of 51 values of τ from the lowest to the
// highest score of any agent (a single τ when all scores are equal).
//
// Intervals are 95% percentile-bootstrap intervals (the 2.5% and 97.5%
// quantiles, linearly interpolated as numpy.percentile does, of B =
// stats.bootstrap_reps replicates). A replicate resamples each stratum's
// seeds with replacement, separately per stratum (stratified); the
// optimality gap resamples (agent, oracle) pairs of one seed together, and
// a pair of agents of improvement.csv is resampled independently (rliable's
// StratifiedIndependentBootstrap). Each agent and each pair draws from its
// own PCG stream keyed by the master seed and its name, so the files do
// not depend on the number of workers or on the other agents of the run.
package aggregate
