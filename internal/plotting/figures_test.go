package plotting

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/smrl-dev/smrl/internal/errs"
)

// gaussSource is a fake DensitySource: s' ~ N(w·(s, a), sigma²), with the
// true W = trueW, and reward r(s) = exp(−(s − 1.5)²).
type gaussSource struct {
	sigma float64
	// nanFor makes Estimated return a NaN density for this agent.
	nanFor string
	// badTrue makes True return a NaN density.
	badTrue bool
}

func gauss(mu, sigma float64) Density {
	return func(x float64) float64 {
		z := (x - mu) / sigma
		return math.Exp(-z*z/2) / (sigma * math.Sqrt(2*math.Pi))
	}
}

func (g gaussSource) True(s, a float64) Density {
	if g.badTrue {
		return func(float64) float64 { return math.NaN() }
	}
	return gauss(trueW[0]*s+trueW[1]*a, g.sigma)
}

func (g gaussSource) Estimated(agent string, w []float64, s, a float64) (Density, bool) {
	if agent == "oracle" || len(w) != 2 {
		return nil, false
	}
	if agent == g.nanFor {
		return func(float64) float64 { return math.NaN() }, true
	}
	return gauss(w[0]*s+w[1]*a, g.sigma), true
}

func (gaussSource) Reward(s float64) float64 { return math.Exp(-(s - 1.5) * (s - 1.5)) }

// decodePNG decodes a PNG file.
func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	return img
}

func TestRunFigures(t *testing.T) {
	tests := []struct {
		name      string
		dir       string
		dens      DensitySource
		opt       Options
		wantFigs  []string
		wantW, wH int
	}{
		{
			name:     "full",
			dir:      fixtureResults,
			dens:     gaussSource{sigma: 0.6},
			wantFigs: []string{FigCumReward, FigReturn, FigCumRegret, FigRegretLogLog, FigPlusCount, FigWError, FigMDP, FigDensities},
			wantW:    800, wH: 600,
		},
		{
			name:     "no oracle, no densities",
			dir:      fixtureNoRegret,
			wantFigs: []string{FigCumReward, FigReturn, FigPlusCount, FigWError},
			wantW:    800, wH: 600,
		},
		{
			name:     "custom size and horizon",
			dir:      fixtureResults,
			dens:     gaussSource{sigma: 0.6},
			opt:      Options{Width: 400 * vg.Inch / 96, Height: 300 * vg.Inch / 96, Horizon: fixtureHorizon},
			wantFigs: []string{FigCumReward, FigReturn, FigCumRegret, FigRegretLogLog, FigPlusCount, FigWError, FigMDP, FigDensities},
			wantW:    400, wH: 300,
		},
		{
			name:     "diverged estimate is left out",
			dir:      fixtureResults,
			dens:     gaussSource{sigma: 0.6, nanFor: "lds"},
			wantFigs: []string{FigCumReward, FigReturn, FigCumRegret, FigRegretLogLog, FigPlusCount, FigWError, FigMDP, FigDensities},
			wantW:    800, wH: 600,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "plots", "nested")
			paths, err := RunFigures(tt.dir, out, tt.dens, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != len(tt.wantFigs) {
				t.Fatalf("wrote %v, want figures %v", paths, tt.wantFigs)
			}
			for i, p := range paths {
				if want := filepath.Join(out, tt.wantFigs[i]+".png"); p != want {
					t.Errorf("path %d = %s, want %s", i, p, want)
				}
				b := decodePNG(t, p).Bounds()
				w, h := tt.wantW, tt.wH
				if tt.wantFigs[i] == FigDensities && tt.opt.Width == 0 && tt.opt.Height == 0 {
					w, h = 1200, 800 // 15 panels: larger unless a size is given
				}
				if b.Dx() != w || b.Dy() != h {
					t.Errorf("%s is %d×%d, want %d×%d", p, b.Dx(), b.Dy(), w, h)
				}
			}
		})
	}
}

func TestRunFiguresFormats(t *testing.T) {
	tests := []struct {
		format   string
		magic    []string // any of
		contains []string
	}{
		{"png", []string{"\x89PNG\r\n\x1a\n"}, nil},
		// Embedded font, and metric-compatible fallbacks for viewers
		// that ignore it.
		{"svg", []string{"<?xml", "<svg"}, []string{"@font-face", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"}},
		{"pdf", []string{"%PDF"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			out := t.TempDir()
			paths, err := RunFigures(fixtureResults, out, gaussSource{sigma: 0.6}, Options{Format: tt.format})
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != 8 {
				t.Fatalf("wrote %d figures, want 8", len(paths))
			}
			for _, p := range paths {
				if filepath.Ext(p) != "."+tt.format {
					t.Errorf("%s: want extension .%s", p, tt.format)
				}
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				ok := false
				for _, m := range tt.magic {
					ok = ok || bytes.HasPrefix(b, []byte(m))
				}
				if !ok {
					t.Errorf("%s starts with %q, want one of %q", p, b[:min(len(b), 8)], tt.magic)
				}
				for _, c := range tt.contains {
					if !bytes.Contains(b, []byte(c)) {
						t.Errorf("%s lacks %q", p, c)
					}
				}
			}
		})
	}
}

func TestOptionsErrors(t *testing.T) {
	tests := []struct {
		name string
		opt  Options
		want string
	}{
		{"format", Options{Format: "gif"}, `format "gif"`},
		{"size", Options{Width: -1}, "must not be negative"},
		{"horizon", Options{Horizon: -2}, "horizon -2"},
		{"range", Options{SMin: 2, SMax: 1}, "SMin < SMax"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RunFigures(fixtureResults, t.TempDir(), nil, tt.opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
			if !errors.Is(err, errs.ErrInvalidInput) {
				t.Errorf("error %v is not ErrInvalidInput", err)
			}
		})
	}
}

// panicSource is a DensitySource whose True panics, like a buggy caller.
type panicSource struct{ gaussSource }

func (panicSource) True(s, a float64) Density { panic("boom") }

func TestRunFiguresBadDensitySource(t *testing.T) {
	tests := []struct {
		name string
		dens DensitySource
		want string
	}{
		{"non-finite true density", gaussSource{sigma: 0.6, badTrue: true}, "true density P(·|s=0.5, a=+1) is not finite"},
		{"panicking source", panicSource{gaussSource{sigma: 0.6}}, "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			paths, err := RunFigures(fixtureResults, out, tt.dens, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
			if want := filepath.Join(out, FigMDP+".png"); !strings.Contains(err.Error(), want) {
				t.Errorf("error %v does not name the figure %s", err, want)
			}
			if len(paths) != 6 {
				t.Errorf("paths written before the error: %v, want the 6 summary figures", paths)
			}
			if _, err := os.Stat(filepath.Join(out, FigMDP+".png")); err == nil {
				t.Error("a failed figure was left on disk")
			}
		})
	}
}

// writeResults writes episodes.csv and summary.csv into a new temporary
// directory.
func writeResults(t *testing.T, episodes, summary string) string {
	t.Helper()
	dir := t.TempDir()
	if episodes != "" {
		if err := os.WriteFile(filepath.Join(dir, episodesFile), []byte(episodes), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if summary != "" {
		if err := os.WriteFile(filepath.Join(dir, summaryFile), []byte(summary), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// countNear counts the pixels within tol of c in every channel.
func countNear(img image.Image, c [3]uint8, tol int) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			px := [3]int{int(r >> 8), int(g >> 8), int(bl >> 8)}
			ok := true
			for i := range 3 {
				if d := px[i] - int(c[i]); d > tol || d < -tol {
					ok = false
				}
			}
			if ok {
				n++
			}
		}
	}
	return n
}

// TestBandDrawn renders cum_reward for one agent (sm) with seeds that
// differ and with identical seeds (lo = hi), and counts pixels of the
// band's colour: sm blue at 20% opacity over white. A real band covers
// thousands of pixels; a zero-width band only leaves the anti-aliased edge
// of the mean line, far fewer.
func TestBandDrawn(t *testing.T) {
	const episodes = "agent,seed,episode,reward,cum_reward,regret,cum_regret,plus_count,w_error,w_0_0,w_0_1\n" +
		"sm,0,1,1,1,,,5,0.5,1,1\n"
	sumRows := func(spread float64) string {
		s := strings.Join(summaryColumns, ",") + "\n"
		for ep := 1; ep <= 6; ep++ {
			m := 3 * float64(ep)
			h := spread * float64(ep)
			s += strings.Join([]string{"sm", itoa(ep), "3", "3",
				ftoa(m), ftoa(m - h), ftoa(m + h), "", "", "", "5", ftoa(5 - spread), ftoa(5 + spread), "0.5"}, ",") + "\n"
		}
		return s
	}
	sm := AgentStyle("sm").Color
	a := bandAlpha
	tint := [3]uint8{
		uint8(math.Round(255*(1-a) + float64(sm.R)*a)),
		uint8(math.Round(255*(1-a) + float64(sm.G)*a)),
		uint8(math.Round(255*(1-a) + float64(sm.B)*a)),
	}
	count := func(spread float64) (band, line int) {
		dir := writeResults(t, episodes, sumRows(spread))
		paths, err := RunFigures(dir, filepath.Join(dir, "plots"), nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		img := decodePNG(t, paths[0])
		return countNear(img, tint, 4), countNear(img, [3]uint8{sm.R, sm.G, sm.B}, 10)
	}
	wide, wideLine := count(1.5)
	flat, flatLine := count(0)
	t.Logf("band-tint pixels: differing seeds %d, identical seeds %d; line pixels %d, %d", wide, flat, wideLine, flatLine)
	if wide < 5000 {
		t.Errorf("differing seeds: %d band pixels, want a visible band (≥ 5000)", wide)
	}
	if flat*5 > wide {
		t.Errorf("identical seeds: %d band pixels, want far fewer than %d", flat, wide)
	}
	if wideLine < 300 || flatLine < 300 {
		t.Errorf("mean line pixels %d, %d: the line must stay visible over the band", wideLine, flatLine)
	}
}

func itoa(i int) string     { return strconv.Itoa(i) }
func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// fmtStyleKey identifies a style's colour and marker shape.
func fmtStyleKey(s Style) string { return fmt.Sprintf("%v|%T", s.Color, s.Glyph) }

func TestMissingInput(t *testing.T) {
	ep, err := os.ReadFile(filepath.Join(fixtureResults, episodesFile))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(fixtureResults, summaryFile))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name              string
		episodes, summary string
		missing           string
	}{
		{"no episodes.csv", "", string(sum), episodesFile},
		{"no summary.csv", string(ep), "", summaryFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeResults(t, tt.episodes, tt.summary)
			_, err := RunFigures(dir, filepath.Join(dir, "plots"), nil, Options{})
			want := filepath.Join(dir, tt.missing)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("error %v, want it to name %s", err, want)
			}
			if !errors.Is(err, os.ErrNotExist) || !errors.Is(err, errs.ErrInvalidInput) {
				t.Errorf("error %v: want ErrNotExist and ErrInvalidInput", err)
			}
		})
	}
}

func TestMalformedInput(t *testing.T) {
	okEp := "agent,seed,episode,reward,cum_reward,regret,cum_regret,plus_count,w_error,w_0_0\n" +
		"sm,0,1,1,1,,,5,0.5,1\n"
	okSum := strings.Join(summaryColumns, ",") + "\n" +
		"sm,1,1,1,1,1,1,,,,5,5,5,0.5\n"
	// With a steps column and one of the later summary columns.
	stepsEp := "agent,seed,episode,reward,steps,cum_reward,regret,cum_regret,plus_count,w_error,beta,w_0_0\n" +
		"sm,0,1,1,8,1,,,5,0.5,,1\n"
	laterSum := strings.Join(summaryColumns, ",") + ",full_seeds,beta_mean\n" +
		"sm,1,1,1,1,1,1,,,,5,5,5,0.5,1,\n"
	tests := []struct {
		name              string
		episodes, summary string
		opt               Options // the run's config, where known
		want              string  // substring after the file name
	}{
		{"summary non-numeric", okEp, strings.Replace(okSum, "sm,1,1,1,1,1,1", "sm,1,1,1,abc,1,1", 1), Options{},
			summaryFile + ` line 2, column 5 (cum_reward_mean): "abc" is not a number`},
		{"summary wrong header", okEp, strings.Replace(okSum, "cum_reward_mean", "cum_rew", 1), Options{},
			summaryFile + ` line 1: missing column "cum_reward_mean"`},
		{"summary wrong field count", okEp, okSum + "sm,2,1\n", Options{},
			summaryFile + " line 3: wrong number of fields"},
		{"summary empty required cell", okEp, strings.Replace(okSum, ",5,5,5,", ",,5,5,", 1), Options{},
			summaryFile + " line 2, column 11 (plus_count_mean): empty cell"},
		{"summary duplicate row", okEp, okSum + "sm,1,1,1,1,1,1,,,,5,5,5,0.5\n", Options{},
			summaryFile + ` line 3: duplicate row for agent "sm" episode 1`},
		{"summary header only", okEp, strings.Join(summaryColumns, ",") + "\n", Options{},
			summaryFile + " line 2: no data rows"},
		{"summary episode zero", okEp, strings.Replace(okSum, "sm,1,", "sm,0,", 1), Options{},
			summaryFile + " line 2, column 2 (episode): 0 is less than 1"},
		// NaN and ±Inf are never smrl's: it writes NaN as an empty cell.
		{"summary NaN in an optional column", okEp, strings.Replace(okSum, "1,1,1,,,,5", "1,1,1,NaN,,,5", 1), Options{},
			summaryFile + ` line 2, column 8 (cum_regret_mean): "NaN" is not a finite number`},
		{"summary Inf", okEp, strings.Replace(okSum, "sm,1,1,1,1", "sm,1,1,Inf,1", 1), Options{},
			summaryFile + ` line 2, column 4 (reward_mean): "Inf" is not a finite number`},
		{"summary -Inf", okEp, strings.Replace(okSum, ",5,5,5,0.5", ",5,5,5,-Inf", 1), Options{},
			summaryFile + ` line 2, column 14 (w_error_mean): "-Inf" is not a finite number`},
		{"summary NaN in a later column", okEp, strings.Replace(laterSum, "0.5,1,\n", "0.5,1,NaN\n", 1), Options{},
			summaryFile + ` line 2, column 16 (beta_mean): "NaN" is not a finite number`},
		{"summary full_seeds above seeds", okEp, strings.Replace(laterSum, "0.5,1,\n", "0.5,2,\n", 1), Options{},
			summaryFile + ` line 2, column 15 (full_seeds): 2 is out of range [0, 1]`},
		{"summary episode beyond the config", okEp, strings.Replace(okSum, "sm,1,", "sm,2,", 1), Options{Episodes: 1},
			summaryFile + " line 2, column 2 (episode): 2 is out of range [1, 1]"},
		{"summary seeds beyond the config", okEp, strings.Replace(okSum, "sm,1,1,", "sm,1,999,", 1), Options{Seeds: 2},
			summaryFile + " line 2, column 3 (seeds): 999 is out of range [1, 2]"},
		{"episodes non-numeric", strings.Replace(okEp, "sm,0,1,1,1", "sm,0,1,x,1", 1), okSum, Options{},
			episodesFile + ` line 2, column 4 (reward): "x" is not a number`},
		{"episodes bad seed", strings.Replace(okEp, "sm,0,1", "sm,zero,1", 1), okSum, Options{},
			episodesFile + ` line 2, column 2 (seed): "zero" is not an integer`},
		{"episodes wrong header", strings.Replace(okEp, "plus_count", "plus", 1), okSum, Options{},
			episodesFile + ` line 1: missing column "plus_count"`},
		{"episodes partial W", strings.Replace(okEp, "w_0_0\n", "w_0_0,w_0_1\n", 1) + "sm,0,2,1,2,,,5,0.5,,3\n", okSum, Options{},
			episodesFile + " line 2: wrong number of fields"},
		{"episodes NaN", strings.Replace(okEp, "sm,0,1,1,1", "sm,0,1,NaN,1", 1), okSum, Options{},
			episodesFile + ` line 2, column 4 (reward): "NaN" is not a finite number`},
		{"episodes -Inf regret", strings.Replace(okEp, "sm,0,1,1,1,,", "sm,0,1,1,1,-Inf,", 1), okSum, Options{},
			episodesFile + ` line 2, column 6 (regret): "-Inf" is not a finite number`},
		{"episodes +Inf W", strings.Replace(okEp, "0.5,1\n", "0.5,+Inf\n", 1), okSum, Options{},
			episodesFile + ` line 2, column 10 (w_0_0): "+Inf" is not a finite number`},
		{"episodes NaN beta", strings.Replace(stepsEp, "0.5,,1\n", "0.5,nan,1\n", 1), okSum, Options{},
			episodesFile + ` line 2, column 11 (beta): "nan" is not a finite number`},
		{"episodes plus_count not an integer", strings.Replace(okEp, ",5,", ",5.5,", 1), okSum, Options{},
			episodesFile + ` line 2, column 8 (plus_count): "5.5" is not an integer`},
		{"episodes plus_count above the horizon", okEp, okSum, Options{Horizon: 4},
			episodesFile + ` line 2, column 8 (plus_count): 5 is out of range [0, 4]`},
		{"episodes plus_count above steps", strings.Replace(stepsEp, ",8,", ",4,", 1), okSum, Options{},
			episodesFile + ` line 2, column 9 (plus_count): 5 is out of range [0, 4]`},
		{"episodes steps above the horizon", stepsEp, okSum, Options{Horizon: 6},
			episodesFile + ` line 2, column 5 (steps): 8 is out of range [1, 6]`},
		{"episodes seed beyond the config", strings.Replace(okEp, "sm,0,1", "sm,1,1", 1), okSum, Options{Seeds: 1},
			episodesFile + ` line 2, column 2 (seed): 1 is out of range [0, 0]`},
		{"episodes negative episode", strings.Replace(okEp, "sm,0,1", "sm,0,-5", 1), okSum, Options{},
			episodesFile + ` line 2, column 3 (episode): -5 is less than 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeResults(t, tt.episodes, tt.summary)
			_, err := RunFigures(dir, filepath.Join(dir, "plots"), nil, tt.opt)
			want := filepath.Join(dir, tt.want)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("error %v, want it to contain %q", err, want)
			}
			if !errors.Is(err, errs.ErrInvalidInput) {
				t.Errorf("error %v is not ErrInvalidInput", err)
			}
		})
	}
}

func TestReadEpisodesFinalW(t *testing.T) {
	const csv = "agent,seed,episode,reward,cum_reward,regret,cum_regret,plus_count,w_error,w_1_0,w_0_1,w_0_0,w_1_1\n" +
		"sm,1,3,0,0,,,0,1,9,9,9,9\n" +
		"sm,0,1,0,0,,,0,1,1,1,1,1\n" +
		"sm,0,2,0,0,,,0,1,30,20,10,40\n" +
		"oracle,0,2,0,0,,,0,,,,,\n" +
		"lds,0,1,0,0,,,0,1,1,2,,4\n"
	dir := writeResults(t, csv, "")
	_, err := readEpisodes(filepath.Join(dir, episodesFile), Options{})
	if err == nil || !strings.Contains(err.Error(), "line 6: the W cell w_0_1 is set after an empty one") {
		t.Fatalf("error %v, want a partial-W error on line 6", err)
	}
	dir = writeResults(t, strings.TrimSuffix(csv, "lds,0,1,0,0,,,0,1,1,2,,4\n"), "")
	got, err := readEpisodes(filepath.Join(dir, episodesFile), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sm := got["sm"]
	if sm.Seed != 0 || sm.Episode != 2 {
		t.Errorf("sm final W from seed %d episode %d, want seed 0 episode 2", sm.Seed, sm.Episode)
	}
	// Row-major by (i, j): w_0_0, w_0_1, w_1_0, w_1_1.
	want := []float64{10, 20, 30, 40}
	if len(sm.W) != 4 {
		t.Fatalf("sm W = %v, want %v", sm.W, want)
	}
	for i := range want {
		if sm.W[i] != want[i] {
			t.Errorf("sm W = %v, want %v", sm.W, want)
			break
		}
	}
	if o := got["oracle"]; o.W != nil {
		t.Errorf("oracle W = %v, want nil", o.W)
	}
}

func TestAgentStyle(t *testing.T) {
	tests := []struct {
		agent string
		rgb   [3]uint8
	}{
		{"oracle", [3]uint8{0, 0, 0}},
		{"sm", [3]uint8{0, 114, 178}},
		{"lds", [3]uint8{213, 94, 0}},
		{"mle", [3]uint8{0, 158, 115}},
	}
	for _, tt := range tests {
		c := AgentStyle(tt.agent).Color
		if [3]uint8{c.R, c.G, c.B} != tt.rgb {
			t.Errorf("%s colour %v, want %v", tt.agent, c, tt.rgb)
		}
	}
	// Every known agent has a distinct colour–marker pair.
	seen := map[string]string{}
	for _, a := range lookedAgents() {
		s := AgentStyle(a)
		k := fmtStyleKey(s)
		if other, dup := seen[k]; dup {
			t.Errorf("%s and %s share a style", a, other)
		}
		seen[k] = a
	}
	// Unknown agents are deterministic and differ from each other often.
	first := fmtStyleKey(AgentStyle("foo"))
	if again := fmtStyleKey(AgentStyle("foo")); first != again {
		t.Error("fallback style is not deterministic")
	}
	distinct := map[string]bool{}
	for _, a := range []string{"a", "b", "c", "d", "e", "f"} {
		distinct[fmtStyleKey(AgentStyle(a))] = true
	}
	if len(distinct) < 3 {
		t.Errorf("fallback styles of 6 names: only %d distinct", len(distinct))
	}
}

func TestLogTicks(t *testing.T) {
	tests := []struct {
		min, max   float64
		wantLabels int // at least
	}{
		{0.01, 10, 4},
		{0.3, 0.9, 2},
		{0.31, 0.39, 2},
		{5, 5000, 3},
	}
	for _, tt := range tests {
		n := 0
		for _, tk := range (logTicks{}).Ticks(tt.min, tt.max) {
			if tk.Label != "" {
				n++
				if tk.Value < tt.min*(1-1e-9) || tk.Value > tt.max*(1+1e-9) {
					t.Errorf("[%g, %g]: tick %g outside the range", tt.min, tt.max, tk.Value)
				}
			}
		}
		if n < tt.wantLabels {
			t.Errorf("[%g, %g]: %d labels, want ≥ %d", tt.min, tt.max, n, tt.wantLabels)
		}
	}
	if got := (logTicks{}).Ticks(0, 1); got != nil {
		t.Errorf("non-positive range: %v ticks, want none", got)
	}
}
