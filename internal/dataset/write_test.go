package dataset

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

// randomTransitions returns n transitions whose values cover many
// magnitudes, both signs, zeros and subnormals.
func randomTransitions(ds, da, n int, seed uint64) *Transitions {
	rnd := rand.New(rand.NewPCG(seed, 1))
	special := []float64{0, math.Copysign(0, -1), 0.1, 1.0 / 3, -2.5, math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, 2.2250738585072014e-308, 1e300, -1e-300, math.Pi, 123456789012345678}
	val := func() float64 {
		switch k := rnd.IntN(4); k {
		case 0:
			return special[rnd.IntN(len(special))]
		case 1:
			return rnd.NormFloat64()
		case 2:
			return math.Float64frombits(rnd.Uint64()&^(0x7ff<<52) | uint64(rnd.IntN(0x7ff))<<52) // any finite value
		default:
			return float64(rnd.IntN(2001) - 1000)
		}
	}
	t := &Transitions{StateDim: ds, ActionDim: da}
	s, a, next := make([]float64, ds), make([]float64, da), make([]float64, ds)
	for range n {
		for _, x := range [][]float64{s, a, next} {
			for j := range x {
				x[j] = val()
			}
		}
		t.Append(s, a, next)
	}
	return t
}

func TestRoundTrip(t *testing.T) {
	for _, test := range []struct {
		name   string
		ds, da int
		n      int
	}{
		{"1-D", 1, 1, 1000},
		{"ds=3 da=2", 3, 2, 1000},
		{"ds=1 da=2", 1, 2, 10},
		{"ds=2 da=1", 2, 1, 10},
		{"single transition", 4, 4, 1},
	} {
		t.Run(test.name, func(t *testing.T) {
			want := randomTransitions(test.ds, test.da, test.n, uint64(test.ds*10+test.da))
			var buf bytes.Buffer
			if err := Write(&buf, want); err != nil {
				t.Fatalf("Write: %v", err)
			}
			got, err := Read(&buf, "buf")
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if !sameTransitions(got, want) {
				t.Errorf("Write→Read changed the data")
			}

			path := filepath.Join(t.TempDir(), "data.csv")
			if err := WriteFile(path, want); err != nil {
				t.Fatalf("WriteFile: %v", err)
			}
			got, err = ReadFile(path)
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			if !sameTransitions(got, want) {
				t.Errorf("WriteFile→ReadFile changed the data")
			}
		})
	}
}

func TestWriteOutput(t *testing.T) {
	for _, test := range []struct {
		name string
		t    *Transitions
		want string
	}{
		{
			name: "1-D",
			t:    &Transitions{StateDim: 1, ActionDim: 1, S: []float64{1, -0.5}, A: []float64{0.1, 1e-20}, Next: []float64{2, math.Copysign(0, -1)}},
			want: "s,a,s_next\n1,0.1,2\n-0.5,1e-20,-0\n",
		},
		{
			name: "ds=1 da=2",
			t:    &Transitions{StateDim: 1, ActionDim: 2, S: []float64{1}, A: []float64{2, 3}, Next: []float64{4}},
			want: "s0,a0,a1,s_next0\n1,2,3,4\n",
		},
		{
			name: "ds=2 da=1",
			t:    &Transitions{StateDim: 2, ActionDim: 1, S: []float64{1, 2}, A: []float64{3}, Next: []float64{4, 1e21}},
			want: "s0,s1,a0,s_next0,s_next1\n1,2,3,4,1e+21\n",
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, test.t); err != nil {
				t.Fatal(err)
			}
			if buf.String() != test.want {
				t.Errorf("got\n%s\nwant\n%s", buf.String(), test.want)
			}
		})
	}
}

func TestWriteInvalid(t *testing.T) {
	for _, test := range []struct {
		name string
		t    *Transitions
		want string
	}{
		{"nil", nil, "dataset: nil Transitions"},
		{"zero value", &Transitions{}, "dataset: invalid dimensions StateDim = 0, ActionDim = 0"},
		{"negative dim", &Transitions{StateDim: 1, ActionDim: -1}, "dataset: invalid dimensions StateDim = 1, ActionDim = -1"},
		{"empty", &Transitions{StateDim: 1, ActionDim: 1}, "dataset: no transitions to write (a data file must hold at least one)"},
		{"ragged S", &Transitions{StateDim: 2, ActionDim: 1, S: []float64{1, 2, 3}, A: []float64{1}, Next: []float64{1, 2}},
			"dataset: inconsistent lengths len(S) = 3, len(A) = 1, len(Next) = 2 for StateDim = 2, ActionDim = 1"},
		{"short A", &Transitions{StateDim: 1, ActionDim: 2, S: []float64{1}, A: []float64{1}, Next: []float64{1}},
			"dataset: inconsistent lengths len(S) = 1, len(A) = 1, len(Next) = 1 for StateDim = 1, ActionDim = 2"},
		{"huge ActionDim", &Transitions{StateDim: 1, ActionDim: math.MaxInt / 2, S: []float64{1, 2, 3, 4}, A: []float64{1}, Next: []float64{1, 2, 3, 4}},
			"dataset: inconsistent lengths len(S) = 4, len(A) = 1, len(Next) = 4 for StateDim = 1, ActionDim = " + strconv.Itoa(math.MaxInt/2)},
		{"short Next", &Transitions{StateDim: 1, ActionDim: 1, S: []float64{1, 2}, A: []float64{1, 2}, Next: []float64{1}},
			"dataset: inconsistent lengths len(S) = 2, len(A) = 2, len(Next) = 1 for StateDim = 1, ActionDim = 1"},
		{"NaN", &Transitions{StateDim: 2, ActionDim: 1, S: []float64{1, 2, 3, math.NaN()}, A: []float64{1, 2}, Next: []float64{1, 2, 3, 4}},
			"dataset: transition 1: S[3] is NaN, which a data file cannot hold"},
		{"Inf", &Transitions{StateDim: 1, ActionDim: 1, S: []float64{1}, A: []float64{math.Inf(-1)}, Next: []float64{1}},
			"dataset: transition 0: A[0] is -Inf, which a data file cannot hold"},
	} {
		t.Run(test.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Write(&buf, test.t)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != test.want {
				t.Errorf("error\n got %s\nwant %s", err, test.want)
			}
			if errors.Is(err, errs.ErrInvalidInput) {
				t.Errorf("error %q wraps errs.ErrInvalidInput", err)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %q despite the error", buf.String())
			}
		})
	}
}

func TestWriteWriterError(t *testing.T) {
	boom := errors.New("boom")
	tr := randomTransitions(2, 2, 10000, 7) // more than one chunk
	for _, w := range []struct {
		name string
		w    interface{ Write([]byte) (int, error) }
	}{
		{"first write", failWriter{boom}},
		{"later write", &limitFailWriter{n: 1, err: boom}},
	} {
		if err := Write(w.w, tr); !errors.Is(err, boom) {
			t.Errorf("%s: got error %v, want %v", w.name, err, boom)
		}
	}
}

type failWriter struct{ err error }

func (w failWriter) Write(p []byte) (int, error) { return 0, w.err }

// limitFailWriter accepts n writes, then fails.
type limitFailWriter struct {
	n   int
	err error
}

func (w *limitFailWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, w.err
	}
	w.n--
	return len(p), nil
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data.csv")
	first := randomTransitions(1, 1, 3, 1)
	second := randomTransitions(2, 3, 5, 2)

	// New file.
	if err := WriteFile(path, first); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	checkFile(t, path, first)
	checkDir(t, dir, "data.csv")
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("new file: mode %v (error %v), want 0644", fi.Mode().Perm(), err)
		}
	}

	// Replace it, keeping its permissions.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, second); err != nil {
		t.Fatalf("WriteFile over an existing file: %v", err)
	}
	checkFile(t, path, second)
	checkDir(t, dir, "data.csv")
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("replaced file: mode %v (error %v), want 0600", fi.Mode().Perm(), err)
		}
	}

	// Failures leave the old file alone and no temporary file behind.
	bad := &Transitions{StateDim: 1, ActionDim: 1, S: []float64{math.NaN()}, A: []float64{0}, Next: []float64{0}}
	err := WriteFile(path, bad)
	if err == nil || !strings.HasPrefix(err.Error(), "writing "+path+": ") {
		t.Errorf("WriteFile(NaN): got error %v, want one starting with %q", err, "writing "+path+": ")
	}
	checkFile(t, path, second)
	checkDir(t, dir, "data.csv")

	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "sub"), first); err == nil {
		t.Error("WriteFile over a directory: no error")
	}
	checkDir(t, dir, "data.csv", "sub")
	checkDir(t, filepath.Join(dir, "sub"))

	if err := WriteFile(filepath.Join(dir, "nodir", "x.csv"), first); err == nil {
		t.Error("WriteFile into a missing directory: no error")
	}
	checkDir(t, dir, "data.csv", "sub")
}

// checkFile checks that the file at path holds want.
func checkFile(t *testing.T, path string, want *Transitions) {
	t.Helper()
	got, err := ReadFile(path)
	if err != nil {
		t.Fatalf("ReadFile: %v", err)
	}
	if !sameTransitions(got, want) {
		t.Errorf("%s does not hold the expected data", path)
	}
}

// checkDir checks that dir holds exactly the named entries.
func checkDir(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, "|") != strings.Join(names, "|") {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}
