package grid

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"go.yaml.in/yaml/v3"
)

// SampleKey is the entry of a sweep: section that asks for random search
// (smrl sweep --sample N): sample: N.
const SampleKey = "sample"

// sampleDigits is the significant digits of a drawn number: enough for a
// search, short enough for a directory name.
const sampleDigits = 4

// Random search (smrl sweep --sample N): instead of the Cartesian product
// of the axes, N points drawn at random. A lin:a:b:n range is the interval
// [a, b], drawn uniformly, a log:a:b:n range drawn uniformly in log
// (log-uniform), their count n unused; an integer key draws a whole number
// of [a, b] (each equally likely; log-uniform, then rounded, for log:); a
// list of values draws one of them, each equally likely. A drawn float has
// 4 significant digits.
//
// Candidate j (0, 1, 2, …) draws every axis in order from its own PCG
// stream, seeded by the master seed and an FNV-1a hash of "smrl sweep
// sample" and j: a pure function of the seed and the ranges, so the
// points are the same on every machine, every shard and every resume,
// and --sample 20 begins with the points of --sample 10. A candidate
// equal to an earlier one is skipped (it would run the same trials); a
// grid with fewer distinct points than asked for is an error.

// sampleSeed is the stream seed of candidate j.
func sampleSeed(j int) uint64 {
	h := fnv.New64a()
	h.Write([]byte("smrl sweep sample\x00" + strconv.Itoa(j)))
	return h.Sum64()
}

// draw returns a value of the axis drawn from rng; t is the key's type
// (config.KeyType).
func (a *Axis) draw(rng *rand.Rand, t reflect.Type) any {
	if a.Scale == List {
		return a.Values[rng.IntN(len(a.Values))]
	}
	parts := strings.Split(a.Range, ":")
	lo, _ := strconv.ParseFloat(parts[1], 64) // parseRange checked them
	hi, _ := strconv.ParseFloat(parts[2], 64)
	lo, hi = math.Min(lo, hi), math.Max(lo, hi)
	u := rng.Float64()
	var x float64
	if a.Scale == Log {
		x = math.Exp(math.Log(lo) + u*(math.Log(hi)-math.Log(lo)))
	} else {
		x = lo + u*(hi-lo)
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Uint64:
		var r float64
		if a.Scale == Log {
			r = math.Min(math.Max(math.Round(x), math.Ceil(lo)), math.Floor(hi))
		} else {
			// Each whole number of [a, b] equally likely.
			first, last := math.Ceil(lo), math.Floor(hi)
			r = math.Min(first+math.Floor(u*(last-first+1)), last)
		}
		if t.Kind() == reflect.Uint64 {
			return uint64(r)
		}
		return int64(r)
	}
	x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', sampleDigits, 64), 64)
	x = math.Min(math.Max(x, lo), hi) // rounding must not leave the range
	if t == reflect.TypeOf(config.Auto("")) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return x
}

// sampled returns the grid of n points drawn from g's axes with the master
// seed seed: its axes hold the drawn values (numbers ascending, others in
// the order of the given list), its points their coordinates in
// candidates' order; the given axes are kept for sweep.yaml.
func (g *Grid) sampled(n int, seed uint64) (*Grid, error) {
	if n < 1 || n > MaxPoints {
		return nil, errs.Invalid(fmt.Errorf("--sample %d: want 1 to %d points", n, MaxPoints))
	}
	types := make([]reflect.Type, len(g.Axes))
	for k, a := range g.Axes {
		var err error
		if types[k], err = config.KeyType(a.Key); err != nil {
			return nil, err
		}
	}
	var draws [][]any
	seen := map[string]bool{}
	for j := 0; len(draws) < n; j++ {
		if j >= 100*n+1000 {
			return nil, errs.Invalid(fmt.Errorf("--sample %d: the swept values have only %d distinct points (%s); sample fewer or sweep the grid", n, len(draws), g.describe()))
		}
		rng := rand.New(rand.NewPCG(seed, sampleSeed(j)))
		vals := make([]any, len(g.Axes))
		texts := make([]string, len(g.Axes))
		for k, a := range g.Axes {
			vals[k] = a.draw(rng, types[k])
			texts[k] = Text(vals[k])
		}
		if key := strings.Join(texts, "\x00"); !seen[key] {
			seen[key] = true
			draws = append(draws, vals)
		}
	}
	out := &Grid{Sample: n, given: g.Axes}
	for k, a := range g.Axes {
		// A range keeps its scale, so the figures draw a log: range's
		// draws on a log axis.
		ax := &Axis{Key: a.Key, Scale: a.Scale, Range: a.Range, Source: a.Source}
		for _, d := range draws {
			if !slices.ContainsFunc(ax.Values, func(v any) bool { return Text(v) == Text(d[k]) }) {
				ax.Values = append(ax.Values, d[k])
			}
		}
		if a.Scale == List {
			// In the order the values were given.
			slices.SortStableFunc(ax.Values, func(x, y any) int {
				return slices.IndexFunc(a.Values, func(v any) bool { return Text(v) == Text(x) }) -
					slices.IndexFunc(a.Values, func(v any) bool { return Text(v) == Text(y) })
			})
		} else {
			slices.SortFunc(ax.Values, func(x, y any) int { return cmpNumber(x, y) })
		}
		if err := ax.finish(); err != nil {
			return nil, err
		}
		out.Axes = append(out.Axes, ax)
	}
	for _, d := range draws {
		coords := make([]int, len(d))
		for k := range d {
			coords[k] = slices.Index(out.Axes[k].Texts, Text(d[k]))
		}
		out.points = append(out.points, coords)
	}
	return out, nil
}

// cmpNumber orders two drawn numbers (int64, uint64, float64 or the text
// of one).
func cmpNumber(x, y any) int {
	f := func(v any) float64 {
		switch t := v.(type) {
		case int64:
			return float64(t)
		case uint64:
			return float64(t)
		case float64:
			return t
		case string:
			z, _ := strconv.ParseFloat(t, 64)
			return z
		}
		return 0
	}
	a, b := f(x), f(y)
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cutSample removes the sample: N entry from a sweep: section's mapping
// value and returns N (0 when absent).
func cutSample(path string, value *yaml.Node) (int, error) {
	if value.Kind != yaml.MappingNode {
		return 0, nil
	}
	for i := 0; i+1 < len(value.Content); i += 2 {
		k, v := value.Content[i], value.Content[i+1]
		if k.Value != SampleKey {
			continue
		}
		n, err := strconv.Atoi(v.Value)
		if v.Kind != yaml.ScalarNode || err != nil || n < 1 || n > MaxPoints {
			return 0, errs.Invalid(fmt.Errorf("%s line %d: sweep: sample: want a number of points from 1 to %d, got %q", path, v.Line, MaxPoints, v.Value))
		}
		value.Content = slices.Delete(value.Content, i, i+2)
		return n, nil
	}
	return 0, nil
}
