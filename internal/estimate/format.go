package estimate

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteJSON writes r as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteTable writes r as aligned columns
//
//	method  n  W  se  |W−W0|_F  seconds  weight
//
// with "-" for an unknown error, for the weight of lds and mle and for
// standard errors withheld (then followed by the line SENote),
// preceded, when λ was cross-validated, by the table lambda, held-out loss
// with the chosen λ marked, and before that, when the rff length was
// cross-validated, by the table length, lambda, held-out loss (at the
// chosen length, the λ table is the cross-validation of λ).
func (r *Result) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(r.LengthCV) > 0 {
		fmt.Fprintln(tw, "length\tlambda\theld-out SM loss\t")
		for _, p := range r.LengthCV {
			loss, mark := "singular", ""
			if p.Loss != nil {
				loss = strconv.FormatFloat(*p.Loss, 'g', 8, 64)
			}
			if r.Length != nil && p.Length == *r.Length {
				mark = "<- chosen"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", formatFloat(p.Length), formatFloat(p.Lambda), loss, mark)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if len(r.CV) > 0 {
		fmt.Fprintln(tw, "lambda\theld-out SM loss\t")
		for _, p := range r.CV {
			loss, mark := "singular", ""
			if p.Loss != nil {
				loss = strconv.FormatFloat(*p.Loss, 'g', 8, 64)
			}
			if p.Lambda == r.Lambda {
				mark = "<- chosen"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", formatFloat(p.Lambda), loss, mark)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(tw, "method\tn\tW\tse\t|W−W0|_F\tseconds\tweight")
	for _, e := range r.Estimates {
		fe := "-"
		if e.FrobeniusError != nil {
			fe = formatFloat(*e.FrobeniusError)
		}
		se := "-"
		if e.SE != nil {
			se = FormatMatrix(e.SE)
		}
		wt := e.Weight
		if wt == "" {
			wt = "-"
		}
		w := FormatMatrix(e.W)
		if e.Kernel != nil {
			w = kernelShape(e)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", e.Method, r.N, w, se, fe, formatFloat(e.Seconds), wt)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range r.Estimates {
		if err := writeKernelFits(w, e); err != nil {
			return err
		}
	}
	if r.SENote != "" {
		_, err := fmt.Fprintln(w, r.SENote)
		return err
	}
	return nil
}

// FormatMatrix formats a matrix as [[a, b], [c, d]] with 4 significant
// digits.
func FormatMatrix(m [][]float64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, row := range m {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('[')
		for j, x := range row {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(formatFloat(x))
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.String()
}

func formatFloat(x float64) string {
	s := strconv.FormatFloat(x, 'g', 4, 64)
	if s == "-0" {
		return "0" // a tiny negative rounded to zero digits is not a signed zero
	}
	return s
}

// kernelShape is the W cell of a kernel fit: its shapes, the numbers
// being in --format json and the saved model.
func kernelShape(e Estimate) string {
	var parts []string
	for _, c := range e.Kernel.Coords {
		parts = append(parts, fmt.Sprintf("%d×%d", len(c.W), len(c.W[0])))
	}
	return strings.Join(parts, " + ") + " (see --format json or --save-model)"
}

// writeKernelFits writes, for a kernel fit, what was chosen per
// coordinate: centres, bandwidth, base scale, λ (with the held-out SM loss
// of every (bandwidth, λ) pair when they were cross-validated).
func writeKernelFits(w io.Writer, e Estimate) error {
	for i, k := range e.KernelFits {
		what := "kernel family"
		if len(e.KernelFits) > 1 {
			what = fmt.Sprintf("kernel family, s' coordinate %d given (s, a, s'_<%d)", i, i)
		}
		if _, err := fmt.Fprintf(w, "%s: %d centres, bandwidth %s, base scale %s, lambda %s, %d CG iterations\n",
			what, k.Centres, formatFloat(k.Bandwidth), formatFloat(k.BaseScale), formatFloat(k.Lambda), k.Iterations); err != nil {
			return err
		}
		if len(k.CV) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  bandwidth\tlambda\theld-out SM loss\t")
		for a, b := range k.Bandwidths {
			for j, l := range k.Lambdas {
				mark := ""
				if b == k.Bandwidth && l == k.Lambda {
					mark = "<- chosen"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", formatFloat(b), formatFloat(l), strconv.FormatFloat(k.CV[a][j], 'g', 8, 64), mark)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
