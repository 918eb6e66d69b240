// Package record holds the records a run produces: a Trial (one agent
// under one seed), the Episode outcomes of a trial with the Diag of its
// refit, and the Result of every trial.
//
// They are plain data. Package runner writes them; packages results,
// aggregate and plotting read them back and draw from them. So that
// redrawing figures from CSV files does not link the simulator, record
// depends on no package of the simulator side (runner, agent, env,
// estimator, expfam): only on config, for the canonical order of a
// config's trials (Trials). The test in arch_test.go keeps it so.
package record
