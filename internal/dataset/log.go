package dataset

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/smrl-dev/smrl/internal/errs"
)

// The run columns of a transitions log, before and after the transition
// itself.
var (
	runLead  = []string{"agent", "seed", "episode", "step"}
	runTrail = []string{"reward", "terminal"}
)

// LogHeader returns the header of a transitions log, the transitions.csv
// a run writes with --save-transitions:
//
//	agent,seed,episode,step,<Header(stateDim, actionDim)>,reward,terminal
//
// seed is the 0-based seed index, episode and step count from 1, reward
// is the step's reward (with the terminal reward on the step that reached
// a terminal state) and terminal is 1 on that step, else 0. Read accepts a
// log as a data set (the run columns are checked, then ignored), and
// ReadFileFilter selects its rows by agent, seed and episode.
func LogHeader(stateDim, actionDim int) []string {
	h := slices.Clone(runLead)
	h = append(h, Header(stateDim, actionDim)...)
	return append(h, runTrail...)
}

// AppendLog appends one line of a transitions log (LogHeader), with a
// newline, to buf. agent must not need CSV quoting (smrl's agent names do
// not).
func AppendLog(buf []byte, agent string, seed, episode, step int, s, a, next []float64, reward float64, terminal bool) []byte {
	buf = append(buf, agent...)
	buf = append(buf, ',')
	buf = strconv.AppendInt(buf, int64(seed), 10)
	buf = append(buf, ',')
	buf = strconv.AppendInt(buf, int64(episode), 10)
	buf = append(buf, ',')
	buf = strconv.AppendInt(buf, int64(step), 10)
	for _, x := range [][]float64{s, a, next, {reward}} {
		buf = append(buf, ',')
		buf = appendRow(buf, x)
	}
	if terminal {
		return append(buf, ",1\n"...)
	}
	return append(buf, ",0\n"...)
}

// Filter selects rows of a transitions log by its run columns. The zero
// Filter selects every row.
type Filter struct {
	Agent string // only this agent; "" for all
	Seeds []int  // only these seeds (0-based); nil for all
	// FirstEpisode and LastEpisode bound the episodes (inclusive); 0 for
	// no bound.
	FirstEpisode, LastEpisode int
}

// any reports whether f selects anything short of every row.
func (f Filter) any() bool {
	return f.Agent != "" || f.Seeds != nil || f.FirstEpisode > 0 || f.LastEpisode > 0
}

// String describes f for messages.
func (f Filter) String() string {
	var parts []string
	if f.Agent != "" {
		parts = append(parts, "agent "+f.Agent)
	}
	if f.Seeds != nil {
		parts = append(parts, fmt.Sprintf("seeds %v", f.Seeds))
	}
	if f.FirstEpisode > 0 || f.LastEpisode > 0 {
		hi := "∞"
		if f.LastEpisode > 0 {
			hi = strconv.Itoa(f.LastEpisode)
		}
		parts = append(parts, fmt.Sprintf("episodes %d–%s", max(f.FirstEpisode, 1), hi))
	}
	return strings.Join(parts, ", ")
}

// runColumns returns how many run columns lead and trail the header names:
// 4 and 2 for a transitions log, 0 and 0 for a plain data set. A header
// with only some of them is an error, described by msg.
func runColumns(names []string) (lead, trail int, msg string) {
	hasLead := len(names) > 0 && names[0] == runLead[0]
	hasTrail := len(names) > 0 && names[len(names)-1] == runTrail[len(runTrail)-1]
	if !hasLead && !hasTrail {
		return 0, 0, ""
	}
	for i, w := range runLead {
		if i >= len(names) || names[i] != w {
			got := "nothing"
			if i < len(names) {
				got = quote(names[i])
			}
			return 0, 0, fmt.Sprintf("column %d is %s, expected %q: a transitions log starts with %s and ends with %s", i+1, got, w, strings.Join(runLead, ","), strings.Join(runTrail, ","))
		}
	}
	for i := len(runTrail) - 1; i >= 0; i-- {
		w, k := runTrail[i], len(names)-len(runTrail)+i
		if k < len(runLead) || names[k] != w {
			got := "nothing"
			if k >= len(runLead) {
				got = quote(names[k])
			}
			return 0, 0, fmt.Sprintf("column %d is %s, expected %q: a transitions log starts with %s and ends with %s", k+1, got, w, strings.Join(runLead, ","), strings.Join(runTrail, ","))
		}
	}
	return len(runLead), len(runTrail), ""
}

// runCells checks the run columns of a log row (lead leading ones, the
// trailing ones from column core on) and reports whether f keeps it.
func (p *parser) runCells(rec []string, lead, core int, f Filter) (keep bool, err error) {
	keep = true
	if lead > 0 {
		agent := strings.TrimSpace(rec[0])
		if agent == "" {
			return false, p.cellErr(rec, 0, "empty agent name")
		}
		var n [3]int
		for k := range n {
			if n[k], err = p.integer(rec, k+1, min(k, 1)); err != nil {
				return false, err
			}
		}
		seed, ep := n[0], n[1]
		keep = (f.Agent == "" || agent == f.Agent) &&
			(f.Seeds == nil || slices.Contains(f.Seeds, seed)) &&
			(f.FirstEpisode == 0 || ep >= f.FirstEpisode) &&
			(f.LastEpisode == 0 || ep <= f.LastEpisode)
	}
	if len(rec) > core {
		if _, err := p.parse(rec, core); err != nil { // reward
			return false, err
		}
		if t := strings.TrimSpace(rec[core+1]); t != "0" && t != "1" {
			return false, p.cellErr(rec, core+1, quote(t)+" is not 0 or 1")
		}
	}
	return keep, nil
}

// integer parses field j of rec as an integer of at least lo.
func (p *parser) integer(rec []string, j, lo int) (int, error) {
	s := strings.TrimSpace(rec[j])
	v, err := strconv.Atoi(s)
	if err == nil && v >= lo {
		return v, nil
	}
	if err != nil {
		return 0, p.cellErr(rec, j, quote(s)+" is not an integer")
	}
	return 0, p.cellErr(rec, j, fmt.Sprintf("%d is less than %d", v, lo))
}

// cellErr returns an invalid-input error naming the file, line and column
// of field j of rec, as parse does.
func (p *parser) cellErr(rec []string, j int, msg string) error {
	line, _ := p.cr.FieldPos(j)
	return errs.Invalid(fmt.Errorf("%s line %d column %s: %s", p.name, line, quote(p.names[j]), msg))
}

// ParseFilter parses the terms of a filter, each key=value: agent=NAME,
// seed=N or seed=N-M (0-based seed indices, inclusive), episodes=N, N-M
// or N- (from N on). A key may appear once. Errors wrap
// errs.ErrInvalidInput and name the term.
func ParseFilter(terms []string) (Filter, error) {
	var f Filter
	seen := map[string]bool{}
	for _, term := range terms {
		key, val, ok := strings.Cut(strings.TrimSpace(term), "=")
		bad := func(why string) (Filter, error) {
			return Filter{}, errs.Invalid(fmt.Errorf("filter %q: %s (want agent=NAME, seed=N[-M] or episodes=N[-M])", term, why))
		}
		if !ok || val == "" {
			return bad("not key=value")
		}
		if seen[key] {
			return bad("key " + key + " given twice")
		}
		seen[key] = true
		switch key {
		case "agent":
			f.Agent = val
		case "seed", "episodes":
			lo, hi, err := parseRange(val, key == "episodes")
			if err != nil {
				return bad(err.Error())
			}
			if key == "episodes" {
				if lo < 1 {
					return bad("episodes count from 1")
				}
				f.FirstEpisode, f.LastEpisode = lo, hi
				continue
			}
			for s := lo; s <= hi; s++ {
				f.Seeds = append(f.Seeds, s)
			}
		default:
			return bad("unknown key " + strconv.Quote(key))
		}
	}
	return f, nil
}

// parseRange parses N, N-M or (with open) N-: an open range has hi 0.
func parseRange(s string, open bool) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(s, "-")
	if lo, err = strconv.Atoi(a); err != nil || lo < 0 {
		return 0, 0, fmt.Errorf("%q does not start with a non-negative integer", s)
	}
	if !isRange {
		return lo, lo, nil
	}
	if b == "" && open {
		return lo, 0, nil
	}
	if hi, err = strconv.Atoi(b); err != nil || hi < lo {
		return 0, 0, fmt.Errorf("in %q, %q is not an integer of at least %d", s, b, lo)
	}
	if hi-lo > 1<<20 {
		return 0, 0, fmt.Errorf("range %s is too wide", s)
	}
	return lo, hi, nil
}
