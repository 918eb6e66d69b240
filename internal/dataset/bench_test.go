package dataset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkRead1e6 reads a data set of 10⁶ transitions held in memory and
// reports the time per transition (ns/row). The values are normally
// distributed, written with full precision (about 18 characters each) as
// Write does; the extreme magnitudes used by the round-trip tests take
// strconv.ParseFloat's slow path and would not be representative.
func BenchmarkRead1e6(b *testing.B) {
	const n = 1_000_000
	for _, dims := range []struct{ ds, da int }{{1, 1}, {3, 2}} {
		b.Run(fmt.Sprintf("ds=%d,da=%d", dims.ds, dims.da), func(b *testing.B) {
			rnd := rand.New(rand.NewPCG(1, 2))
			t := &Transitions{StateDim: dims.ds, ActionDim: dims.da}
			for range n * dims.ds {
				t.S = append(t.S, rnd.NormFloat64())
				t.Next = append(t.Next, rnd.NormFloat64())
			}
			for range n * dims.da {
				t.A = append(t.A, rnd.NormFloat64())
			}
			var buf bytes.Buffer
			if err := Write(&buf, t); err != nil {
				b.Fatal(err)
			}
			data := buf.Bytes()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				tr, err := Read(bytes.NewReader(data), "bench.csv")
				if err != nil {
					b.Fatal(err)
				}
				if tr.Len() != n {
					b.Fatalf("read %d transitions, want %d", tr.Len(), n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
		})
	}
}

// BenchmarkAppendLog is the cost per transition of --save-transitions: one
// line of a transitions log of a 4-D state and 1-D action.
func BenchmarkAppendLog(b *testing.B) {
	s, a, next := []float64{0.1, -0.2, 0.03, 1.5}, []float64{1}, []float64{0.11, -0.19, 0.031, 1.45}
	buf := make([]byte, 0, 1<<20)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = AppendLog(buf[:0], "sm", 3, 12, 150, s, a, next, 1, false)
	}
}
