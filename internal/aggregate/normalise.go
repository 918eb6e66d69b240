package aggregate

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/results"
)

// ErrReference marks a task whose reference scores cannot normalise it:
// a reference agent did not run, or the two references are equal.
var ErrReference = errors.New("no reference scores to normalise by")

// TaskScores returns the stratum of one task (a run, a point of a sweep)
// from its rows with the score of st (FromRows), normalised as
// st.Normalise says (Normalise), and its agents in row order.
func TaskScores(rows []results.Row, st config.Stats) (Stratum, []string, error) {
	s, agents := FromRows(rows, st)
	n, err := Normalise(s, st)
	return n, agents, err
}

// Normalise returns the scores of the task s scaled as rliable's
// normalised scores, x ↦ (x − lo)/(hi − lo), so that the scores of tasks
// with returns of different scales aggregate on one scale (a score of 0 is
// lo's, 1 is hi's):
//
//   - st.Normalise "none": s itself (raw returns);
//   - "random-oracle": lo and hi the mean scores over seeds of the random
//     agent and of the regret baseline (the oracle) on this task;
//   - "declared": [lo, hi] = st.Reference.
//
// A missing reference agent or lo = hi is an error wrapping ErrReference
// and errs.ErrInvalidInput. s is not changed.
func Normalise(s Stratum, st config.Stats) (Stratum, error) {
	var lo, hi float64
	switch st.Normalise {
	case config.NormaliseNone, "":
		return s, nil
	case config.NormaliseDeclared:
		if len(st.Reference) != 2 {
			return s, errs.Invalid(fmt.Errorf("stats.reference %v: %w", st.Reference, ErrReference))
		}
		lo, hi = st.Reference[0], st.Reference[1]
	case config.NormaliseOracle:
		r, o := s.Scores[config.RandomAgent], s.Scores[s.baseline()]
		if len(r) == 0 || len(o) == 0 {
			return s, errs.Invalid(fmt.Errorf("stats.normalise %s: the task has no scores of the random agent or the oracle: %w", st.Normalise, ErrReference))
		}
		lo, hi = mean(r), mean(o)
	default:
		return s, errs.Invalid(fmt.Errorf("stats.normalise %q: unknown", st.Normalise))
	}
	if !(hi != lo) || math.IsInf(hi-lo, 0) {
		return s, errs.Invalid(fmt.Errorf("stats.normalise %s: the references score the same mean (%v and %v) on this task, so normalised scores are undefined (%w): declare them (stats.normalise: declared, stats.reference: [low, high]) or run the task longer; the results files are written, the aggregates are not",
			st.Normalise, lo, hi, ErrReference))
	}
	out := Stratum{Scores: make(map[string][]float64, len(s.Scores)), Seeds: s.Seeds}
	for a, x := range s.Scores {
		y := slices.Clone(x)
		for i := range y {
			y[i] = (y[i] - lo) / (hi - lo)
		}
		out.Scores[a] = y
	}
	return out, nil
}
