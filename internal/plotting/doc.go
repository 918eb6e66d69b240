// Package plotting draws the figures of the paper "Exponential Family
// Model-Based RL via Score Matching" (NeurIPS 2022) from smrl's results files
// alone, with gonum/plot.
//
// # Inputs
//
// A results directory DIR holds two CSV files written by the experiment
// runner:
//
//   - DIR/episodes.csv, one row per (agent, seed, episode):
//
//     agent,seed,episode,reward,cum_reward,regret,cum_regret,plus_count,w_error,beta,ball_accept,w_0_0,w_0_1,...
//
//     seed is an index 0..S-1 and episode counts from 1. The trailing w_i_j
//     columns hold the agent's estimated W (d_psi rows × d_phi columns, any
//     number of them); they are handed to DensitySource.Estimated in
//     row-major order, W[i*d_phi+j] = w_i_j, whatever their column order.
//     regret and cum_regret are empty when no oracle was run, w_error and the
//     w_i_j cells may be empty for an agent without a model (the oracle).
//     Extra columns, such as beta (the confidence radius of the -ucb
//     agents), ball_accept and the refit diagnostics cond, min_eig_n and
//     w_step, are checked but not drawn; they may be absent. The last
//     columns action_0, action_1, … (a discrete action set) count the
//     steps per action and feed the actions figure.
//
//   - DIR/summary.csv, one row per (agent, episode), aggregated over seeds:
//
//     agent,episode,seeds,reward_mean,cum_reward_mean,cum_reward_lo,cum_reward_hi,
//     cum_regret_mean,cum_regret_lo,cum_regret_hi,plus_count_mean,plus_count_lo,
//     plus_count_hi,w_error_mean[,beta_mean,regret_slope]
//
//     lo and hi bound a 95% Student-t interval over seeds (lo = hi = mean for
//     one seed). The cum_regret_* cells are empty without an oracle and
//     w_error_mean may be empty for the oracle. The trailing columns are
//     optional and not read: the regret_loglog figure fits its slope itself,
//     by the same rule as regret_slope.
//
// An estimation-error sweep (smrl estimate --sweep-n) is a third CSV with
// header method,n,repeat,frobenius_error.
//
// A malformed file (a missing required column, a non-numeric cell, a wrong
// number of fields, a duplicated row) is reported as "FILE line N: ...",
// and missing files by their path. Such errors wrap errs.ErrInvalidInput.
//
// # Figures
//
// Every figure is registered by the file that draws it (register, in its
// init; Figures lists them): its name, its order among the files and in
// the reports, the data it draws from, where it appears (a run, a sweep,
// smrl estimate), its caption and its row of the figure table of
// docs/outputs.md. RunFigures, GridFigures, AggregateFigures and the
// reports iterate the registry, so a new figure is one file.
//
// RunFigures writes these files into an output directory, each named after
// the figure with the extension of Options.Format:
//
//   - cum_reward: mean cumulative reward against episode per agent, from
//     summary.csv cum_reward_{mean,lo,hi}; the 95% interval over seeds is a
//     translucent band under the mean line.
//   - cum_regret: the same for cumulative regret against the oracle
//     (cum_regret_*), without the oracle itself. Written only when some
//     agent has regret values.
//   - regret_loglog: mean cumulative regret against episode k on log–log
//     axes, per non-oracle agent, drawing only the episodes whose mean is
//     positive (an agent with none is left out; no bands, which would
//     reach below zero). Each legend entry carries the slope b of the
//     least-squares fit log R̄_k = a + b log k over the second half of the
//     agent's episodes (k > K/2, K its last episode; points with R̄_k > 0,
//     at least two, else "–"), the fit is drawn as a thin dotted line over
//     that range, and a grey dashed √k line (slope 0.5, the growth of the
//     regret bound) passes through the last point of the first agent.
//     Linear regret has slope 1, regret that has stopped growing slope 0.
//     Written when some agent has a positive mean cumulative regret.
//   - plus_count: number of steps per episode at which the agent chose
//     a = +1 (0..H), mean and band: the paper's "planner action choices".
//     The band is clipped to [0, H] (to [0, ∞) when Options.Horizon is
//     unset), since a t interval over few seeds can reach past the bounds.
//   - actions: one panel per agent (config order), in it the fraction of
//     each episode's steps that played each action (action_i / steps, mean
//     over seeds) on [0, 1], labelled by Options.Actions. Written when
//     episodes.csv has action counts.
//   - w_error: mean Frobenius error ‖Ŵ − W₀‖_F against episode per agent
//     (summary.csv w_error_mean), on a log y axis when every value is
//     positive. Skipped when no agent has an error.
//   - mdp: the true densities P(s' | s = 0.5, a = +1) and P(s' | s = 0.5,
//     a = −1) over s' in [SMin, SMax] (600 points) with the reward r(s')
//     overlaid, scaled so that max |r| equals the densities' maximum: the
//     paper's panel (a). Needs a DensitySource.
//   - densities: a 3 × 5 grid of panels for 15 states s evenly spaced in
//     [SMin, SMax]. Each panel fills the true P(·|s, a = ±1) as translucent
//     areas and draws every model-based agent's estimate as lines (solid
//     for a = +1, dashed for a = −1), from the agent's W in the last episode
//     of seed 0 (the smallest seed present) in episodes.csv. All panels share
//     one s' range, the part of [SMin − (SMax−SMin)/2, SMax + (SMax−SMin)/2]
//     where the true densities carry mass, and never less than
//     [SMin, SMax]. Needs a DensitySource; an estimate with a non-finite
//     value is left out of its panel, a non-finite true density is an error.
//
// SweepFigure draws the sweep CSV as estimation error against n on log–log
// axes: per method the mean over repeats with a band of
// mean ± 1.96·sd/√R (R repeats at that n; the lower edge is raised to the
// smallest observed error when it would not be positive), and a dashed
// c/√n guide through the first point of the first method in the file.
//
// Report writes DIR/report.md with the final-episode summary table and every
// figure linked relative to DIR.
//
// # Style
//
// Every agent has a fixed colour, marker and dash pattern (AgentStyle), the
// same in every figure: oracle black, sm blue, lds vermillion, mle green,
// their -ucb and -ps variants lighter/darker shades with their own markers
// and dashes; unknown agents get a fallback chosen deterministically from
// the name. Legends are drawn outside the data area (a column on the right,
// or rows under the density grid) so they never hide curves; bands are
// drawn before all lines so they never hide them either. Text is Liberation
// Sans, sized for 800 × 600 px.
//
// # Output formats
//
// png (the default) is 800 × 600 px; another Options size renders the same
// layout at a proportionally higher or lower resolution. svg embeds its
// font (about 0.5 MB per file) and names Arial and Helvetica, which have
// the same metrics, as fallbacks. pdf goes through an adapter that corrects
// two defects of gonum/plot v0.17's PDF backend: premultiplied colours,
// which turned translucent bands grey, and UTF-8 text written into a cp1252
// font, which garbled characters such as "−" and "·". Characters missing
// from cp1252 are replaced by look-alikes, so pdf labels read "||W^ – W0||"
// where png and svg show "‖Ŵ − W₀‖".
package plotting
