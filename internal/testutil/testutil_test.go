package testutil

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	_ "github.com/smrl-dev/smrl/internal/agent" // registers the parts a config names
)

const importPath = "github.com/smrl-dev/smrl/internal/testutil"

// Only tests may import testutil (or its numeric helpers): a command or package that did would link
// package testing and the helpers into smrl. The module's non-test Go files
// are parsed for their imports, outside testdata and hidden directories.
func TestOnlyTestsImportTestutil(t *testing.T) {
	root := filepath.Join("..", "..")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		n++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			// testutil itself, test-only too, re-exports numeric.
			inTestutil := strings.HasPrefix(filepath.ToSlash(path), "../../internal/testutil/")
			if p, _ := strconv.Unquote(im.Path.Value); p == importPath || p == importPath+"/numeric" && !inTestutil {
				t.Errorf("%s imports %s, which only _test.go files may import", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d non-test Go files found under %s", n, root)
	}
}

func TestWithin(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		got, want, tol float64
		ok             bool
	}{
		{1, 1, 0, true},
		{1 + 1e-10, 1, 1e-9, true},
		{1 + 1e-8, 1, 1e-9, false},
		{1e-12, 0, 1e-9, true}, // absolute below |want| = 1
		{1e-8, 0, 1e-9, false},
		{1000.5, 1000, 1e-3, true}, // relative above
		{1002, 1000, 1e-3, false},
		{inf, inf, 0, true},
		{-inf, inf, 1, false},
		{1, inf, 1, false},
		{inf, 1, 1, false},
		{nan, nan, 1, false},
		{nan, 1, 1, false},
		{1, nan, 1, false},
	} {
		if got := Within(tc.got, tc.want, tc.tol); got != tc.ok {
			t.Errorf("Within(%v, %v, %v) = %v, want %v", tc.got, tc.want, tc.tol, got, tc.ok)
		}
	}
}

func TestSameBits(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		a, b []float64
		ok   bool
	}{
		{nil, nil, true},
		{nil, []float64{}, true},
		{[]float64{1, 2}, []float64{1, 2}, true},
		{[]float64{1, 2}, []float64{1}, false},
		{[]float64{0}, []float64{math.Copysign(0, -1)}, false},
		{[]float64{nan}, []float64{nan}, true},
		{[]float64{1}, []float64{math.Nextafter(1, 2)}, false},
	} {
		if got := SameBits(tc.a, tc.b); got != tc.ok {
			t.Errorf("SameBits(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.ok)
		}
	}
}

func TestSameBitsOrNaN(t *testing.T) {
	payload := math.Float64frombits(math.Float64bits(math.NaN()) ^ 1)
	for _, tc := range []struct {
		got, want float64
		ok        bool
	}{
		{1, 1, true},
		{0, math.Copysign(0, -1), false},
		{math.NaN(), payload, true},
		{math.NaN(), 1, false},
		{math.Inf(1), math.Inf(1), true},
		{1, math.Nextafter(1, 2), false},
	} {
		if got := SameBitsOrNaN(tc.got, tc.want); got != tc.ok {
			t.Errorf("SameBitsOrNaN(%v, %v) = %v, want %v", tc.got, tc.want, got, tc.ok)
		}
	}
}

// A shipped config loads, and LoadYAML returns a bad file's error.
func TestLoadConfig(t *testing.T) {
	if c := LoadConfig(t, filepath.Join(Configs, "quick.yaml")); c == nil {
		t.Fatal("no config")
	}
	if _, err := os.Stat(Configs); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadYAML(t, "no_such_key: 1\n"); err == nil {
		t.Fatal("an unknown key loads")
	}
}

// recorder stands for a test: its Fatalf keeps the message and, as a
// test's does, ends the goroutine that called it.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}

// Errorf keeps the message; the test goes on, as a test's does.
func (r *recorder) Errorf(format string, args ...any) { r.msg = fmt.Sprintf(format, args...) }

func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// The failing helpers fail naming what and the element, and pass silently
// otherwise.
func TestHelpersFailNamingTheValue(t *testing.T) {
	for _, tc := range []struct {
		call func(tb testing.TB)
		want string
	}{
		{func(tb testing.TB) { Close(tb, "loss", 1.5, 1, 1e-9) }, "loss = 1.5, want 1 (tolerance 1e-09)"},
		{func(tb testing.TB) { Close(tb, "loss", 1, 1, 0) }, ""},
		{func(tb testing.TB) { CloseSlices(tb, "W", []float64{1, 2}, []float64{1, 3}, 1e-9) }, "W[1] = 2, want 3 (tolerance 1e-09)"},
		{func(tb testing.TB) { CloseSlices(tb, "W", []float64{1}, []float64{1, 3}, 1e-9) }, "W: 1 values, want 2"},
		{func(tb testing.TB) { CloseSlices(tb, "W", []float64{1, 3}, []float64{1, 3}, 0) }, ""},
		{func(tb testing.TB) { RequireSameBits(tb, "V", []float64{0}, []float64{math.Copysign(0, -1)}) }, "V[0] = 0, want -0 (bits differ)"},
		{func(tb testing.TB) { RequireSameBits(tb, "V", []float64{0}, nil) }, "V: 1 values, want 0"},
		{func(tb testing.TB) { RequireSameBits(tb, "V", []float64{2}, []float64{2}) }, ""},
		{func(tb testing.TB) { AbsClose(tb, "x", 1.25, 1, 0.25) }, ""},
		{func(tb testing.TB) { AbsClose(tb, "x", 1000.5, 1000, 0.25) }, "x = 1000.5, want 1000 (absolute tolerance 0.25)"}, // absolute, not relative
		{func(tb testing.TB) { AbsClose(tb, "x", math.NaN(), 1, 1) }, "x = NaN, want 1 (absolute tolerance 1)"},
		{func(tb testing.TB) { AbsClose(tb, "x", math.Inf(1), math.Inf(1), 0) }, ""},
		{func(tb testing.TB) { AbsClosef(tb, 1.25, 1, 0.25, "η=%g: mean", 2.0) }, ""},
		{func(tb testing.TB) { AbsClosef(tb, 1.5, 1, 0.25, "η=%g: mean %g, want %g", 2.0, 1.5, 1.0) }, "η=2: mean 1.5, want 1"},
		{func(tb testing.TB) { AbsClosef(tb, math.NaN(), 1, 1, "z %g", math.NaN()) }, "z NaN"},
		{func(tb testing.TB) {
			if !AbsWithin(1, 1.5, 0.5) || AbsWithin(1, 1.5, 0.25) || AbsWithin(math.NaN(), 1, 1) || !AbsWithin(math.Inf(-1), math.Inf(-1), 0) {
				tb.Errorf("AbsWithin wrong")
			}
		}, ""},
		{func(tb testing.TB) {
			if AbsClose(tb, "x", 2, 1, 0.5) {
				tb.Fatalf("AbsClose(2, 1, 0.5) reports close")
			}
			AbsClose(tb, "y", 3, 3, 0) // the test goes on after a report
		}, "x = 2, want 1 (absolute tolerance 0.5)"},
	} {
		r := &recorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			tc.call(r)
		}()
		<-done
		if r.msg != tc.want {
			t.Errorf("failed with %q, want %q", r.msg, tc.want)
		}
	}
}
