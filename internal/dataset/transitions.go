package dataset

import (
	"fmt"
	"strconv"
)

// Transitions is a data set of n transitions (s_t, a_t, s'_t), stored row-major.
//
// Row i of S, A and Next holds s_i, a_i and s'_i. A Transitions is valid when
// StateDim and ActionDim are positive, len(S) and len(Next) are
// n×StateDim and len(A) is n×ActionDim. The zero value is an empty data set
// whose dimensions are set by the first call to Append.
type Transitions struct {
	// StateDim and ActionDim are the dimensions d_s of a state and d_a of
	// an action.
	StateDim, ActionDim int

	S    []float64 // n×StateDim: row i is the state s_i
	A    []float64 // n×ActionDim: row i is the action a_i
	Next []float64 // n×StateDim: row i is the next state s'_i
}

// Len returns the number of transitions n. It returns 0 for a nil
// Transitions or one with a non-positive StateDim.
func (t *Transitions) Len() int {
	if t == nil || t.StateDim <= 0 {
		return 0
	}
	return len(t.S) / t.StateDim
}

// State returns s_i, the state of transition i, as a view of t.S of length
// StateDim. Changing its elements changes t; its capacity is its length, so
// appending to it never overwrites transition i+1.
// State panics if i is not in [0, t.Len()).
func (t *Transitions) State(i int) []float64 {
	return row(t.S, t.StateDim, i, t.Len(), "State")
}

// Action returns a_i, the action of transition i, as a view of t.A of length
// ActionDim, with the same aliasing rules as State.
// Action panics if i is not in [0, t.Len()).
func (t *Transitions) Action(i int) []float64 {
	return row(t.A, t.ActionDim, i, t.Len(), "Action")
}

// NextState returns s'_i, the state reached by transition i, as a view of
// t.Next of length StateDim, with the same aliasing rules as State.
// NextState panics if i is not in [0, t.Len()).
func (t *Transitions) NextState(i int) []float64 {
	return row(t.Next, t.StateDim, i, t.Len(), "NextState")
}

// row returns row i of the row-major matrix data with d columns and n rows.
func row(data []float64, d, i, n int, method string) []float64 {
	if i < 0 || i >= n || (i+1)*d > len(data) {
		panic(fmt.Sprintf("dataset: %s(%d) out of range for %d transitions", method, i, n))
	}
	return data[i*d : (i+1)*d : (i+1)*d]
}

// Append adds the transition (s, a, next) to t, copying the values.
//
// If t is empty and its dimensions are both zero, they are set to len(s) and
// len(a). Append panics if len(s) or len(next) differs from StateDim, if
// len(a) differs from ActionDim, or if a dimension would be zero: these are
// programming errors, not bad data. Append does not check that the values
// are finite; Write does.
func (t *Transitions) Append(s, a, next []float64) {
	if t.StateDim == 0 && t.ActionDim == 0 && len(t.S) == 0 && len(t.A) == 0 && len(t.Next) == 0 {
		t.StateDim, t.ActionDim = len(s), len(a)
	}
	if t.StateDim <= 0 || t.ActionDim <= 0 ||
		len(s) != t.StateDim || len(a) != t.ActionDim || len(next) != t.StateDim {
		panic(fmt.Sprintf("dataset: Append(len %d, len %d, len %d) to transitions with StateDim %d, ActionDim %d",
			len(s), len(a), len(next), t.StateDim, t.ActionDim))
	}
	t.S = append(t.S, s...)
	t.A = append(t.A, a...)
	t.Next = append(t.Next, next...)
}

// Header returns the column names of a data file with the given state and
// action dimensions: s,a,s_next when both are 1, and
// s0,…,s{stateDim-1},a0,…,a{actionDim-1},s_next0,…,s_next{stateDim-1}
// otherwise. It returns nil if either dimension is not positive.
func Header(stateDim, actionDim int) []string {
	if stateDim <= 0 || actionDim <= 0 {
		return nil
	}
	if stateDim == 1 && actionDim == 1 {
		return []string{"s", "a", "s_next"}
	}
	var h []string
	if stateDim < 1<<20 && actionDim < 1<<20 {
		h = make([]string, 0, 2*stateDim+actionDim)
	}
	for i := range stateDim {
		h = append(h, "s"+strconv.Itoa(i))
	}
	for i := range actionDim {
		h = append(h, "a"+strconv.Itoa(i))
	}
	for i := range stateDim {
		h = append(h, "s_next"+strconv.Itoa(i))
	}
	return h
}
