package experiment

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimate"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// lastW returns, from dir/episodes.csv, the W of agent's seed at its last
// episode, and every episode's reward and steps of that seed.
func lastW(t *testing.T, dir, agent string, seed int) (w []float64, reward []float64, steps []int) {
	t.Helper()
	header, _, rows := readEpisodes(t, dir)
	for _, r := range rows {
		if r[0] != agent || r[1] != strconv.Itoa(seed) {
			continue
		}
		w = w[:0]
		for j, h := range header {
			var a, b int
			if n, _ := fmt.Sscanf(h, "w_%d_%d", &a, &b); n == 2 && r[j] != "" {
				v, _ := strconv.ParseFloat(r[j], 64)
				w = append(w, v)
			}
		}
		x, _ := strconv.ParseFloat(r[3], 64)
		n, _ := strconv.Atoi(r[4])
		reward, steps = append(reward, x), append(steps, n)
	}
	// A large Ŵ is in w.csv (format version 2), its rows in the order of
	// episodes.csv's.
	if b, err := os.ReadFile(filepath.Join(dir, results.WFile)); err == nil {
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs[1:] {
			if r[0] != agent || r[1] != strconv.Itoa(seed) {
				continue
			}
			w = w[:0]
			for _, c := range r[3:] {
				if c != "" {
					v, _ := strconv.ParseFloat(c, 64)
					w = append(w, v)
				}
			}
		}
	}
	return w, reward, steps
}

// refitLog fits method with penalty lambda to the rows f selects of the
// transitions log at path, as an agent on mdp fits its data.
func refitLog(t *testing.T, path string, f dataset.Filter, method string, mdp *env.MDP, lambda float64) []float64 {
	t.Helper()
	data, err := dataset.ReadFileFilter(path, f)
	if err != nil {
		t.Fatal(err)
	}
	w, err := estimate.Fit(method, mdp, estimate.Features(mdp, data), data, lambda)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The transitions a run saves are the agents' own data: fitted with the
// same method and λ they give back each agent's final Ŵ to 1e-12; their
// rewards add up to the episodes' returns, each episode has its steps and
// only a terminal last step is marked; the file does not depend on the
// number of workers, and its gzip form holds the same bytes.
func TestTransitionsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		config   string
		agents   []string
		episodes int
	}{
		{"../../configs/quick.yaml", []string{"sm", "lds", "oracle"}, 4},
		{"../../configs/cartpole.yaml", []string{"sm", "lds"}, 3},
		{"../../configs/pendulum.yaml", []string{"sm"}, 1}, // a model of s' − s
	} {
		t.Run(filepath.Base(tc.config), func(t *testing.T) {
			c := testutil.LoadConfig(t, tc.config)
			c.Agents, c.Seeds, c.Episodes = tc.agents, 2, tc.episodes
			c.Env.Horizon = min(c.Env.Horizon, 60) // a cheaper pendulum: fewer planning steps
			mdp, err := env.New(c)
			if err != nil {
				t.Fatal(err)
			}
			var first []byte
			var dir string
			for _, w := range []int{1, 2} {
				dir = t.TempDir()
				if err := Run(context.Background(), c, Options{OutDir: dir, Workers: w, SaveTransitions: true, TransitionsGzip: w == 2}); err != nil {
					t.Fatal(err)
				}
				if w == 1 {
					if first, err = os.ReadFile(filepath.Join(dir, TransitionsFile)); err != nil {
						t.Fatal(err)
					}
					continue
				}
				f, err := os.Open(filepath.Join(dir, TransitionsGzFile))
				if err != nil {
					t.Fatal(err)
				}
				zr, err := gzip.NewReader(f)
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if _, err := b.ReadFrom(zr); err != nil {
					t.Fatal(err)
				}
				f.Close()
				if !bytes.Equal(b.Bytes(), first) {
					t.Fatal("transitions.csv.gz with 2 workers does not hold the bytes of transitions.csv with 1")
				}
			}
			path := filepath.Join(dir, TransitionsGzFile)
			for _, agent := range tc.agents {
				for seed := range c.Seeds {
					w, reward, steps := lastW(t, dir, agent, seed)
					for ep := 1; ep <= c.Episodes; ep++ {
						checkEpisode(t, first, agent, seed, ep, reward[ep-1], steps[ep-1], mdp.Horizon)
					}
					if agent == "oracle" {
						continue
					}
					got := refitLog(t, path, dataset.Filter{Agent: agent, Seeds: []int{seed}}, agent, mdp, c.Lambda)
					testutil.CloseSlices(t, fmt.Sprintf("%s seed %d: Ŵ from transitions.csv against episodes.csv", agent, seed), got, w, 1e-12)
				}
			}
		})
	}
}

// checkEpisode checks one episode of a transitions log against its row
// of episodes.csv.
func checkEpisode(t *testing.T, log []byte, agent string, seed, ep int, reward float64, steps, horizon int) {
	t.Helper()
	prefix := fmt.Sprintf("\n%s,%d,%d,", agent, seed, ep)
	var sum float64
	n, terminal := 0, false
	for rest := string(log); ; {
		i := strings.Index(rest, prefix)
		if i < 0 {
			break
		}
		line := rest[i+1:]
		line = line[:strings.IndexByte(line, '\n')]
		rest = rest[i+1:]
		cells := strings.Split(line, ",")
		n++
		if s, _ := strconv.Atoi(cells[3]); s != n {
			t.Fatalf("%s seed %d episode %d: step %s, want %d", agent, seed, ep, cells[3], n)
		}
		r, _ := strconv.ParseFloat(cells[len(cells)-2], 64)
		sum += r
		if terminal {
			t.Fatalf("%s seed %d episode %d: a step after the terminal one", agent, seed, ep)
		}
		terminal = cells[len(cells)-1] == "1"
	}
	if n != steps || terminal != (steps < horizon) {
		t.Errorf("%s seed %d episode %d: %d steps (terminal %v) in the log, episodes.csv has %d of H = %d", agent, seed, ep, n, terminal, steps, horizon)
	}
	if !testutil.Within(sum, reward, 1e-9) {
		t.Errorf("%s seed %d episode %d: rewards add up to %v, the return is %v", agent, seed, ep, sum, reward)
	}
}

// --save-transitions with --resume is refused before anything is written.
func TestTransitionsNoResume(t *testing.T) {
	c := testutil.LoadConfig(t, "../../configs/quick.yaml")
	err := Run(context.Background(), c, Options{OutDir: t.TempDir(), SaveTransitions: true, Resume: true})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("err = %v", err)
	}
}

// The example data set examples/data/quick-transitions.csv is exactly what
// smrl run --config configs/quick.yaml --save-transitions writes.
func TestExampleTransitionsAreCurrent(t *testing.T) {
	if testutil.FusedMulAdd {
		t.Skip("the golden files are a default amd64 build's; this build may fuse multiply-adds, which changes results")
	}
	const example = "../../examples/data/quick-transitions.csv"
	want, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	c := testutil.LoadConfig(t, "../../configs/quick.yaml")
	dir := t.TempDir()
	if err := Run(context.Background(), c, Options{OutDir: dir, SaveTransitions: true}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, TransitionsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what smrl run --config configs/quick.yaml --save-transitions writes now; regenerate it", example)
	}
}

// With SaveTransitions, a folder where the transitions log goes in smrl's
// own results directory is refused, naming it, before anything changes
// (the rename failed after the trials, with exit 1 and the old results
// removed).
func TestSaveTransitionsRefusesFolder(t *testing.T) {
	c := testutil.LoadConfig(t, "../../configs/quick.yaml")
	c.Seeds, c.Episodes, c.Stats.BootstrapReps = 1, 2, fewDraws
	base := t.TempDir()
	if err := Run(context.Background(), c, Options{OutDir: base}); err != nil {
		t.Fatal(err)
	}
	for _, gz := range []bool{false, true} {
		name := transitionsName(gz)
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "r")
			if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Join(p, "inside"), 0o755); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			err := Run(context.Background(), c, Options{OutDir: dir, Overwrite: true, SaveTransitions: true, TransitionsGzip: gz})
			if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), p+" is a folder") {
				t.Fatalf("err = %v, want invalid input naming %s", err, p)
			}
			sameTree(t, dir, before, "refused run")
		})
	}
}
