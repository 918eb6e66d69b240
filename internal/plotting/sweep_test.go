package plotting

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/testutil"
)

func TestSweepFigure(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		opt     Options
		wantOut string
		magic   string
	}{
		{"png default", "sweep.png", Options{}, "sweep.png", "\x89PNG"},
		{"no extension", "sweep", Options{Format: "svg"}, "sweep.svg", "<?xml"},
		{"pdf nested dir", "a/b/sweep.pdf", Options{Format: "pdf"}, "a/b/sweep.pdf", "%PDF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := SweepFigure(fixtureSweep, filepath.Join(dir, tt.out), tt.opt); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tt.wantOut)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), tt.magic) {
				t.Errorf("%s starts with %q, want %q", path, b[:min(8, len(b))], tt.magic)
			}
			if tt.opt.Format == "" {
				bounds := decodePNG(t, path).Bounds()
				if bounds.Dx() != 800 || bounds.Dy() != 600 {
					t.Errorf("%s is %d×%d, want 800×600", path, bounds.Dx(), bounds.Dy())
				}
			}
		})
	}
}

func TestSweepFigureErrors(t *testing.T) {
	tests := []struct {
		name string
		csv  string // "" = no file
		out  string
		want string
	}{
		{"missing file", "", "s.png", "sweep.csv"},
		{"wrong header", "method,n,rep,frobenius_error\nsm,10,0,1\n", "s.png",
			`sweep.csv line 1: missing column "repeat"`},
		{"non-numeric", "method,n,repeat,frobenius_error\nsm,10,0,1\nsm,20,0,big\n", "s.png",
			`sweep.csv line 3, column 4 (frobenius_error): "big" is not a number`},
		{"zero n", "method,n,repeat,frobenius_error\nsm,0,0,1\n", "s.png",
			"sweep.csv line 2, column 2 (n): 0 is less than 1"},
		{"negative error", "method,n,repeat,frobenius_error\nsm,10,0,-1\n", "s.png",
			"sweep.csv line 2, column 4 (frobenius_error): -1 is negative"},
		{"NaN error", "method,n,repeat,frobenius_error\nsm,10,0,1\nsm,20,0,NaN\n", "s.png",
			`sweep.csv line 3, column 4 (frobenius_error): "NaN" is not a finite number`},
		{"Inf error", "method,n,repeat,frobenius_error\nsm,10,0,+Inf\n", "s.png",
			`sweep.csv line 2, column 4 (frobenius_error): "+Inf" is not a finite number`},
		{"fractional repeat", "method,n,repeat,frobenius_error\nsm,10,0.5,1\n", "s.png",
			`sweep.csv line 2, column 3 (repeat): "0.5" is not an integer`},
		{"duplicate repeat", "method,n,repeat,frobenius_error\nsm,10,0,1\nsm,10,0,2\n", "s.png",
			`sweep.csv line 3: duplicate row for method "sm" n 10 repeat 0`},
		{"zero mean", "method,n,repeat,frobenius_error\nsm,10,0,0\nsm,20,0,1\n", "s.png",
			"cannot be drawn on a log axis"},
		// Issue 35, defect 10: finite, but the mean and band overflow (exit 1
		// from the plotter before).
		{"error that overflows", "method,n,repeat,frobenius_error\nsm,100,0,1\nsm,100,1,1e308\nsm,200,0,1\n", "s.png",
			"sweep.csv line 3, column 4 (frobenius_error): 1e308 is too large to draw"},
		{"extension mismatch", "method,n,repeat,frobenius_error\nsm,10,0,1\n", "s.svg",
			`extension "svg" does not match format "png"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			csvPath := filepath.Join(dir, "sweep.csv")
			if tt.csv != "" {
				if err := os.WriteFile(csvPath, []byte(tt.csv), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(dir, tt.out)
			err := SweepFigure(csvPath, out, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
			if !errors.Is(err, errs.ErrInvalidInput) {
				t.Errorf("error %v is not ErrInvalidInput", err)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written despite the error", out)
			}
		})
	}
}

func TestReadSweep(t *testing.T) {
	const csv = "method,n,repeat,frobenius_error\n" +
		"mle,100,0,0.1\nmle,100,1,0.3\nmle,10,0,1\nsm,10,0,2\nsm,10,1,4\nsm,10,2,6\n"
	dir := t.TempDir()
	path := filepath.Join(dir, "s.csv")
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := readSweep(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.Methods, ",") != "mle,sm" {
		t.Errorf("methods %v, want file order mle, sm", d.Methods)
	}
	tests := []struct {
		method        string
		i             int
		n, mean, sd   float64
		repeats       int
		minErr, maxEr float64
	}{
		{"mle", 0, 10, 1, 0, 1, 1, 1},
		{"mle", 1, 100, 0.2, math.Sqrt(0.02), 2, 0.1, 0.3},
		{"sm", 0, 10, 4, 2, 3, 2, 6},
	}
	for _, tt := range tests {
		p := d.Points[tt.method][tt.i]
		if p.N != tt.n || !testutil.AbsWithin(p.Mean, tt.mean, 1e-12) || !testutil.AbsWithin(p.SD, tt.sd, 1e-12) ||
			p.Repeats != tt.repeats || p.Min != tt.minErr || p.Max != tt.maxEr {
			t.Errorf("%s[%d] = %+v, want n %g mean %g sd %g R %d min %g max %g",
				tt.method, tt.i, p, tt.n, tt.mean, tt.sd, tt.repeats, tt.minErr, tt.maxEr)
		}
	}
}

// Errors whose squared deviations overflow, but whose mean and band do
// not, are drawn: the sd is summed again scaled (issue 35, defect 10).
func TestSweepFigureDrawsLargeErrors(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "sweep.csv")
	if err := os.WriteFile(csvPath, []byte("method,n,repeat,frobenius_error\nsm,10,0,1\nsm,10,1,1e200\nsm,20,0,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SweepFigure(csvPath, filepath.Join(dir, "s.png"), Options{}); err != nil {
		t.Fatal(err)
	}
	d, err := readSweep(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	pt := d.Points["sm"][0]
	if want := 1e200 / math.Sqrt2; !testutil.AbsWithin(pt.SD, want, 1e-12*want) {
		t.Errorf("sd = %g, want %g", pt.SD, want)
	}
}
