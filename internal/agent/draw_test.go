package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
)

// countSource is a rand.Source that returns first, then zeros, counting
// its draws: it shows which case of NormFloat64 a first draw falls in.
type countSource struct {
	first uint64
	n     int
}

func (c *countSource) Uint64() uint64 {
	c.n++
	if c.n == 1 {
		return c.first
	}
	return 0
}

// The ziggurat tables are math/rand/v2's: for every strip i and both signs,
// NormFloat64 returns j·wn[i] from its first draw alone at |j| = kn[i] − 1
// and needs more draws at |j| = kn[i] (the edge of the case source.normals
// does itself), and the value is j·zigW[i].
func TestZigguratTablesAreMathRand(t *testing.T) {
	for i := range uint64(128) {
		k := int64(zigK[i])
		for _, sign := range []int64{1, -1} {
			for _, j := range []int64{k - 1, k} {
				if j <= 0 {
					continue // strip 1 (kn = 0) has no fast case
				}
				sj := sign * j
				src := &countSource{first: i<<32 | uint64(uint32(int32(sj)))}
				x := rand.New(src).NormFloat64()
				fast := src.n == 1
				if want := j < k; fast != want {
					t.Fatalf("strip %d, j = %d: NormFloat64 took the fast case %v, the tables say %v", i, sj, fast, want)
				}
				if fast && math.Float64bits(x) != math.Float64bits(float64(sj)*float64(zigW[i])) {
					t.Fatalf("strip %d, j = %d: NormFloat64 = %v, j·zigW = %v", i, sj, x, float64(sj)*float64(zigW[i]))
				}
			}
		}
	}
}

// source.normals and source.intN draw what rng.NormFloat64 and rng.IntN
// draw, bit for bit, and leave the stream where they leave it: long
// streams of several seeds (the slow cases of the ziggurat included),
// interleaved with the other draws, in chunks of 1 to 7 deviates.
func TestSourceDrawsAreRands(t *testing.T) {
	slow := 0
	for seed := range uint64(6) {
		pa, pb := rand.NewPCG(seed, 77), rand.NewPCG(seed, 77)
		ra, rb := rand.New(pa), rand.New(pb)
		src, ok := bindSource(ra, pa)
		if !ok {
			t.Fatal("bindSource refused rand.New(pcg) and pcg")
		}
		buf := make([]float64, 7)
		for step := range 40000 {
			out := buf[:1+step%7]
			src.normals(out)
			for k, x := range out {
				y := rb.NormFloat64()
				if math.Float64bits(x) != math.Float64bits(y) {
					t.Fatalf("seed %d step %d deviate %d: source %v, NormFloat64 %v", seed, step, k, x, y)
				}
				if math.Abs(y) > 3.44 {
					slow++ // beyond the base strip's edge r: the slowest case
				}
			}
			for _, n := range []int{1, 2, 3, 4, 6, 8, 1 << 20, min(1<<40+3, math.MaxInt)} { // 2^31 − 1 on 32-bit
				if a, b := src.intN(n), rb.IntN(n); a != b {
					t.Fatalf("seed %d step %d: source.intN(%d) = %d, IntN %d", seed, step, n, a, b)
				}
			}
			if step%1000 == 0 { // a draw through rng itself keeps them in step
				if a, b := ra.Float64(), rb.Float64(); a != b {
					t.Fatalf("seed %d step %d: the streams parted: %v, %v", seed, step, a, b)
				}
			}
		}
		if a, b := pa.Uint64(), pb.Uint64(); a != b {
			t.Fatalf("seed %d: the streams end at different places", seed)
		}
	}
	if slow == 0 {
		t.Fatal("no deviate of the ziggurat's base strip: the slow cases were not exercised")
	}
}

// bindSource accepts exactly a rand.Rand of the given PCG, and the check
// leaves that stream where it was.
func TestBindSource(t *testing.T) {
	p, twin := rand.NewPCG(5, 6), rand.NewPCG(5, 6)
	r := rand.New(p)
	if _, ok := bindSource(r, p); !ok {
		t.Fatal("refused its own PCG")
	}
	if a, b := p.Uint64(), twin.Uint64(); a != b {
		t.Fatal("binding moved the stream")
	}
	other := rand.NewPCG(5, 6)
	if _, ok := bindSource(rand.New(other), p); ok {
		t.Fatal("accepted a PCG that its rand.Rand does not draw from, though in the same state")
	}
	if _, ok := bindSource(rand.New(rand.NewChaCha8([32]byte{})), p); ok {
		t.Fatal("accepted a ChaCha8 stream")
	}
	pl, err := NewPlanner("random", 1, 5, 10, false, [][]float64{{-1}, {1}}, nil, boxTask{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("BindSource did not panic for a rand.Rand of another source")
		}
	}()
	pl.BindSource(rand.New(rand.NewPCG(1, 1)), p)
}

// A planner told its stream's PCG (Planner.BindSource) plans exactly as
// one that draws through the rand.Rand: the same actions and values over
// a walk of decisions, and the stream ends in the same place. RSS over 2
// actions (drawn inline) and 3 (through IntN), a Gaussian model of s' − s
// on [s, a] (CartPole's learners) and a Survival task, with and without
// common random numbers.
func TestBoundPlannerPlansAsUnbound(t *testing.T) {
	const ds = 4
	cs := make([]expfam.Coord, ds)
	for i := range cs {
		cs[i], _ = expfam.NewGaussCoord(0.02 + 0.01*float64(i))
	}
	dist, _ := expfam.NewCoords(cs)
	feat := expfam.Linear{DS: ds, DA: 1}
	w := make([]float64, ds*feat.Dim())
	for i := range w {
		w[i] = 0.05 * math.Sin(0.7*float64(i)+0.3)
	}
	m, err := expfam.NewModel(dist, feat, w)
	if err != nil {
		t.Fatal(err)
	}
	sim := deltaSim{Simulator: expfam.NewStepper(m)}
	for _, actions := range [][][]float64{{{-1}, {1}}, {{-1}, {0}, {1}}} {
		for _, crn := range []bool{false, true} {
			mk := func() *Planner {
				p, err := NewPlanner("random", 1, 11, 40, crn, actions, nil, survTask{ds}, ds)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			label := fmt.Sprintf("%d actions, crn %v", len(actions), crn)
			ends := 0
			for _, v := range planBoth(t, label, mk(), mk(), sim, 3, 300) {
				if v < 10 {
					ends++ // some rollout of the best sequence ended early
				}
			}
			if ends == 0 {
				t.Fatalf("%s: no decision saw a terminal state", label)
			}
		}
	}
	// MPPI's perturbations (two action coordinates, two rounds per
	// decision): the same sequences, values and stream.
	box := &Box{Low: []float64{-1, -2}, High: []float64{1, 2}}
	feat2 := expfam.Linear{DS: ds, DA: 2}
	w2 := make([]float64, ds*feat2.Dim())
	for i := range w2 {
		w2[i] = 0.05 * math.Cos(0.3*float64(i)+0.1)
	}
	m2, err := expfam.NewModel(dist, feat2, w2)
	if err != nil {
		t.Fatal(err)
	}
	sim2 := deltaSim{Simulator: expfam.NewStepper(m2)}
	for _, crn := range []bool{false, true} {
		mk := func() *Planner {
			c := plannerConfig("mppi")
			c.Tau, c.NRollouts, c.CRN = 9, 2, crn
			mppiOf(&c).Samples, mppiOf(&c).Iterations = 12, 2
			p, err := NewFromConfig(c, nil, box, survTask{ds}, ds)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		planBoth(t, fmt.Sprintf("mppi, crn %v", crn), mk(), mk(), sim2, 5, 200)
	}
}

// planBoth makes decisions decisions with bound, told its stream's PCG
// (BindSource), and plain, drawing through its rand.Rand, from the same
// states and equal streams (seed), and fails unless they play the same
// actions with the same values, bit for bit, and leave the streams in the
// same place. It returns the values.
func planBoth(t *testing.T, label string, bound, plain *Planner, sim Simulator, seed uint64, decisions int) []float64 {
	t.Helper()
	pb, pp := rand.NewPCG(seed, seed+1), rand.NewPCG(seed, seed+1)
	rb, rp := rand.New(pb), rand.New(pp)
	bound.BindSource(rb, pb)
	s := []float64{0.1, -0.2, 0.05, 0.3}
	values := make([]float64, decisions)
	for step := range decisions {
		ib, vb := bound.Best(sim, s, rb)
		ip, vp := plain.Best(sim, s, rp)
		ab, ap := bound.Action(ib), plain.Action(ip)
		if ib != ip || math.Float64bits(vb) != math.Float64bits(vp) || !slices.EqualFunc(ab, ap, func(x, y float64) bool {
			return math.Float64bits(x) == math.Float64bits(y)
		}) {
			t.Fatalf("%s, decision %d: bound %d %v (value %v), unbound %d %v (%v)", label, step, ib, ab, vb, ip, ap, vp)
		}
		values[step] = vb
		for i := range s {
			s[i] = 1.3 * math.Sin(float64(3*step+i))
		}
	}
	if a, b := rb.Uint64(), rp.Uint64(); a != b {
		t.Fatalf("%s: the streams end in different places", label)
	}
	return values
}
