// Package dataset reads and writes data sets of transitions (s_t, a_t, s'_t)
// for score-matching reinforcement learning.
//
// # File format
//
// A data set is a CSV file (RFC 4180, as read by encoding/csv) whose first
// line is a header naming the columns. Every following line is one
// transition: the state s_t, the action a_t and the next state s'_t, in that
// order, one number per column.
//
// When both the state and the action are one-dimensional the header is
//
//	s,a,s_next
//
// Otherwise, with state dimension d_s and action dimension d_a, the header is
//
//	s0,s1,…,s{d_s-1},a0,…,a{d_a-1},s_next0,…,s_next{d_s-1}
//
// The indexed form is accepted for d_s = d_a = 1 as well (s0,a0,s_next0).
// The column order is fixed: all state columns, then all action columns,
// then all next-state columns, each group indexed consecutively from 0, and
// there are as many next-state columns as state columns. d_s and d_a are
// inferred from the header. Column names are case-sensitive.
//
// Each data line must have exactly as many fields as the header. A field is a
// floating-point number in decimal notation (for example 1, -0.25 or 3e-8;
// not the hexadecimal 0x1p-4 or the underscored 1_0 that strconv.ParseFloat
// also takes); NaN and ±Inf are rejected, as are numbers out of the range
// of a float64: too large (1e400), or not zero but so small that they
// would be read as 0 (1e-400; a subnormal such as 5e-324 is kept).
//
// Whitespace around header names and fields is ignored, including whitespace
// inside quotes; a quoted field must still begin and end with its quote, as
// encoding/csv requires. Lines may end in LF or CRLF, and a leading UTF-8
// byte order mark is ignored. Blank lines (empty or whitespace only) are
// allowed only at the end of the file: a blank line before the header or
// between transitions is an error. A file must hold at least one transition.
//
// Example, with d_s = 2 and d_a = 1:
//
//	s0,s1,a0,s_next0,s_next1
//	0.5,-1,0.1,0.52,-0.98
//	0.52,-0.98,-0.3,0.49,-0.97
//
// # Errors
//
// Every error caused by the contents of a data file, and the error for a file
// that cannot be opened, wraps errs.ErrInvalidInput, so that
// errors.Is(err, errs.ErrInvalidInput) reports true. The message names the
// file and, where there is one, the line (the header is line 1) and the
// column, as in
//
//	data.csv line 7 column "a": "abc" is not a number
//
// Write writes numbers in the shortest form that reads back to the same
// float64 (strconv.FormatFloat with format 'g' and precision -1), so a data
// set survives Write followed by Read bit for bit.
package dataset
