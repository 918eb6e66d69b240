package plotting

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// logTicks marks a log axis: labelled decades with unlabelled minor ticks
// when the range spans a decade or more, and labelled 1-2-5 (or every
// integer multiple) ticks inside narrower ranges, so that every log axis
// shows at least two labels. Non-positive bounds yield no ticks instead of
// panicking like plot.LogTicks.
type logTicks struct{}

var _ plot.Ticker = logTicks{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) || math.IsInf(max, 0) {
		return nil
	}
	lo := int(math.Floor(math.Log10(min)))
	hi := int(math.Ceil(math.Log10(max)))
	for _, labelled := range [][]int{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		var ticks []plot.Tick
		nLabels := 0
		for e := lo; e <= hi; e++ {
			dec := math.Pow(10, float64(e))
			for m := 1; m <= 9; m++ {
				v := float64(m) * dec
				if v < min*(1-1e-9) || v > max*(1+1e-9) {
					continue
				}
				t := plot.Tick{Value: v}
				for _, l := range labelled {
					if m == l {
						t.Label = strconv.FormatFloat(v, 'g', 6, 64)
						nLabels++
					}
				}
				ticks = append(ticks, t)
			}
		}
		if nLabels >= 2 {
			return ticks
		}
	}
	// Less than a factor of two between min and max: plain labels.
	return plot.DefaultTicks{}.Ticks(min, max)
}

// linTicks marks a linear axis with about five labelled ticks at steps of
// 1, 2, 2.5 or 5 × 10^k and an unlabelled tick half-way between labels
// (gonum's DefaultTicks aims at only three labels, too sparse at 800 px).
type linTicks struct{}

var _ plot.Ticker = linTicks{}

// Ticks implements plot.Ticker.
func (linTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	raw := (hi - lo) / 5
	e := int(math.Floor(math.Log10(raw)))
	mag := math.Pow(10, float64(e))
	mult, extra := 10.0, -1 // decimals beyond -e the step needs
	for _, m := range []struct {
		m     float64
		extra int
	}{{1, 0}, {2, 0}, {2.5, 1}, {5, 0}} {
		if m.m*mag >= raw*(1-1e-9) {
			mult, extra = m.m, m.extra
			break
		}
	}
	step := mult * mag
	if !(step > 0) || math.IsInf(step, 0) || (hi-lo)/step > 100 {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	decimals := max(0, -e+extra)
	var ticks []plot.Tick
	half := step / 2
	first := math.Ceil(lo/half-1e-9) * half
	for i := 0; ; i++ {
		v := first + float64(i)*half
		if v > hi+half*1e-9 {
			break
		}
		k := math.Round(v / half)
		v = k * half
		t := plot.Tick{Value: v}
		if math.Mod(math.Abs(k), 2) == 0 {
			if math.Abs(v) < step*1e-9 {
				v = 0
			}
			t.Value = v
			t.Label = strconv.FormatFloat(v, 'f', decimals, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// intTicks marks an axis of integers (episodes): labels only at integers,
// every integer when the range holds few, else linTicks' labels (whose
// steps are then whole numbers) with only the minor ticks that fall on
// integers. A 3-episode run gets 1, 2, 3, never 1.5 or 2.5.
type intTicks struct{}

var _ plot.Ticker = intTicks{}

// maxIntLabels is the most integers intTicks labels one by one.
const maxIntLabels = 10

// Ticks implements plot.Ticker.
func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi >= lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	first, last := math.Ceil(lo-1e-9), math.Floor(hi+1e-9)
	if last-first+1 <= maxIntLabels {
		var ticks []plot.Tick
		for v := first; v <= last; v++ {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
		}
		return ticks
	}
	var ticks []plot.Tick
	for _, t := range (linTicks{}).Ticks(lo, hi) {
		if t.Value == math.Trunc(t.Value) {
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// distinctTicks relabels the labelled ticks of its ticker with the fewest
// significant digits (at least those of gonum's 'g' labels) that make
// every label differ, so that a narrow range (a marginal of cos θ on
// [−1, −0.999]) reads −1, −0.9998, −0.9996, … and not −1, −1, −1, −0.999.
type distinctTicks struct{ plot.Ticker }

// Ticks implements plot.Ticker.
func (d distinctTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := d.Ticker.Ticks(lo, hi)
	if distinctLabels(ticks) {
		return ticks
	}
	for digits := 2; digits <= 15; digits++ {
		out := make([]plot.Tick, len(ticks))
		for i, t := range ticks {
			out[i] = t
			if t.Label != "" {
				out[i].Label = strconv.FormatFloat(t.Value, 'g', digits, 64)
			}
		}
		if distinctLabels(out) {
			return out
		}
	}
	return ticks
}

// distinctLabels reports whether no two labelled ticks share a label.
func distinctLabels(ticks []plot.Tick) bool {
	seen := map[string]bool{}
	for _, t := range ticks {
		if t.Label == "" {
			continue
		}
		if seen[t.Label] {
			return false
		}
		seen[t.Label] = true
	}
	return true
}
