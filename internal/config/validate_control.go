package config

import "slices"

// This file holds the keys of issue 23 (planner.tie_break, env.kind lq and
// acrobot, the lqr agent) and their validation, kept apart so that the
// config restructuring can move them as one piece.

// TieBreaks are the values of planner.tie_break.
var TieBreaks = []string{"first", "vote", "mean"}

// validateControl checks planner.tie_break.
func (c *Config) validateControl(bad func(key, format string, args ...any)) {
	p := c.Planner
	if !slices.Contains(TieBreaks, p.TieBreak) {
		bad("planner.tie_break", "unknown tie-break %q (known: %v)", p.TieBreak, TieBreaks)
	} else if p.TieBreak != "first" && (p.Kind != "rss" || p.Mode != "random" || c.Env.ActionSpace != "discrete") {
		bad("planner.tie_break", "%q applies to planner.kind rss in mode random over a discrete action set (env.action_space: discrete), got kind %s, mode %s, action space %s; use first",
			p.TieBreak, p.Kind, p.Mode, c.Env.ActionSpace)
	}
}
