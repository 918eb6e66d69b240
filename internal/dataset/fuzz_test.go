package dataset

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

// FuzzRead checks that Read never panics, that every error it returns is an
// invalid-input error naming the file, and that whatever it accepts is a
// valid data set that survives Write followed by Read unchanged.
//
// The seed corpus is in testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.csv"
		tr, err := Read(bytes.NewReader(data), name)
		if err != nil {
			if tr != nil {
				t.Errorf("non-nil Transitions with error %v", err)
			}
			if !errors.Is(err, errs.ErrInvalidInput) {
				t.Errorf("error %q does not wrap errs.ErrInvalidInput", err)
			}
			if !strings.HasPrefix(err.Error(), name+": ") && !strings.HasPrefix(err.Error(), name+" line ") {
				t.Errorf("error %q does not start with the file name", err)
			}
			return
		}

		n := tr.Len()
		if tr.StateDim < 1 || tr.ActionDim < 1 || n < 1 {
			t.Fatalf("StateDim %d, ActionDim %d, Len %d", tr.StateDim, tr.ActionDim, n)
		}
		if len(tr.S) != n*tr.StateDim || len(tr.A) != n*tr.ActionDim || len(tr.Next) != n*tr.StateDim {
			t.Fatalf("len(S) = %d, len(A) = %d, len(Next) = %d for %d transitions of dims %d, %d",
				len(tr.S), len(tr.A), len(tr.Next), n, tr.StateDim, tr.ActionDim)
		}
		for _, x := range [][]float64{tr.S, tr.A, tr.Next} {
			for _, v := range x {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("non-finite value %v", v)
				}
			}
		}

		var buf bytes.Buffer
		if err := Write(&buf, tr); err != nil {
			t.Fatalf("Write: %v", err)
		}
		again, err := Read(&buf, "again.csv")
		if err != nil {
			t.Fatalf("Read after Write: %v", err)
		}
		if !sameTransitions(tr, again) {
			t.Fatalf("Write→Read changed the data")
		}
	})
}

// TestFuzzSeeds checks that the seed corpus files named valid_* hold valid
// data sets and those named invalid_* do not, so that the corpus keeps
// covering both paths.
func TestFuzzSeeds(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzRead", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no seed corpus")
	}
	for _, path := range paths {
		name := filepath.Base(path)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 2 || lines[0] != "go test fuzz v1" ||
			!strings.HasPrefix(lines[1], "[]byte(") || !strings.HasSuffix(lines[1], ")") {
			t.Errorf("%s: not a corpus file with one []byte value", name)
			continue
		}
		data, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		_, err = Read(strings.NewReader(data), name)
		switch {
		case strings.HasPrefix(name, "valid_") && err != nil:
			t.Errorf("%s: %v", name, err)
		case strings.HasPrefix(name, "invalid_") && err == nil:
			t.Errorf("%s: no error", name)
		case !strings.HasPrefix(name, "valid_") && !strings.HasPrefix(name, "invalid_"):
			t.Errorf("%s: seed name must start with valid_ or invalid_", name)
		}
	}
}
