package experiment

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/testutil"
)

func TestEpisodesIdenticalForAnyWorkers(t *testing.T) {
	for _, agents := range [][]string{{"sm", "lds", "oracle"}, {"sm-ucb", "lds-ps", "oracle"}} {
		c := testutil.LoadConfig(t, "../../configs/quick.yaml")
		c.Agents = agents
		c.Stats.BootstrapReps = fewDraws
		if agents[0] == "sm-ucb" {
			// The ball, the confidence draws and the rollout scoring all
			// draw from the trial's streams.
			c.Episodes = 4
			testutil.Set(t, c, "confidence.value", "rollout", "confidence.b_star", 2.0)
		}
		var first []byte
		for _, w := range []int{1, 2, 8} {
			dir := t.TempDir()
			if err := Run(context.Background(), c, Options{OutDir: dir, Workers: w}); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"episodes.csv", "summary.csv", "config.yaml"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if f == "episodes.csv" {
					if first == nil {
						first = b
					} else if !bytes.Equal(first, b) {
						t.Fatalf("%v: episodes.csv with %d workers differs from 1 worker", agents, w)
					}
				}
			}
		}
	}
}

// readEpisodes returns the header of dir/episodes.csv, the index of each
// of its columns and its rows.
func readEpisodes(t *testing.T, dir string) (header []string, col map[string]int, rows [][]string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, results.EpisodesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col = map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	return recs[0], col, recs[1:]
}

// final returns, per agent, the final cumulative reward of every seed and
// the plus counts per episode.
func final(t *testing.T, dir string) (cum map[string][]float64, plus map[string]map[int][]float64) {
	t.Helper()
	_, col, rows := readEpisodes(t, dir)
	cum, plus = map[string][]float64{}, map[string]map[int][]float64{}
	last := map[[2]string]float64{} // (agent, seed) → cumulative reward so far
	for _, r := range rows {
		ep, _ := strconv.Atoi(r[col["episode"]])
		c, _ := strconv.ParseFloat(r[col["cum_reward"]], 64)
		p, _ := strconv.ParseFloat(r[col["plus_count"]], 64)
		last[[2]string{r[0], r[1]}] = c
		if plus[r[0]] == nil {
			plus[r[0]] = map[int][]float64{}
		}
		plus[r[0]][ep] = append(plus[r[0]][ep], p)
	}
	for k, v := range last {
		cum[k[0]] = append(cum[k[0]], v)
	}
	return cum, plus
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// A reduced acceptance test: the paper's MDP with 3 seeds and 12 episodes.
// Margins: SM's mean final cumulative reward within 8% of the oracle's (the
// full run asks 5%; early episodes weigh more here), LDS at least 15% below,
// and SM playing +1 at least 9 of 10 steps on average from episode 5 on.
// With W0 = [1, −1], SM plays −1 instead (at most 1 of 10 steps +1).
func TestReducedPaperComparison(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the RL loop")
	}
	for _, tc := range []struct {
		path    string
		flipped bool
	}{{"../../configs/synthetic.yaml", false}, {"../../configs/synthetic-flipped.yaml", true}} {
		c := testutil.LoadConfig(t, tc.path)
		c.Seeds, c.Episodes = 3, 12
		dir := t.TempDir()
		if err := Run(context.Background(), c, Options{OutDir: dir}); err != nil {
			t.Fatal(err)
		}
		cum, plus := final(t, dir)
		sm, lds, or := mean(cum["sm"]), mean(cum["lds"]), mean(cum["oracle"])
		t.Logf("%s: oracle %.1f sm %.1f lds %.1f", tc.path, or, sm, lds)
		if sm < 0.92*or {
			t.Errorf("%s: sm %.1f not within 8%% of oracle %.1f", tc.path, sm, or)
		}
		if lds > 0.85*or {
			t.Errorf("%s: lds %.1f not 15%% below oracle %.1f", tc.path, lds, or)
		}
		for ep := 5; ep <= c.Episodes; ep++ {
			p := mean(plus["sm"][ep])
			if !tc.flipped && p < 9 {
				t.Errorf("episode %d: sm plays +1 %.1f times, want >= 9", ep, p)
			}
			if tc.flipped && p > 1 {
				t.Errorf("flipped, episode %d: sm plays +1 %.1f times, want <= 1", ep, p)
			}
		}
	}
}

func TestNonLDSConfigRuns(t *testing.T) {
	c := testutil.LoadConfig(t, "../../configs/nonlds.yaml")
	c.Seeds, c.Episodes = 2, 4
	c.Planner.NRollouts = 10
	if err := Run(context.Background(), c, Options{OutDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
}

func TestUnwritableOutFailsBeforeTrials(t *testing.T) {
	if os.Geteuid() == 0 {
		// root ignores directory permissions; use a path under a file instead.
		f := filepath.Join(t.TempDir(), "file")
		os.WriteFile(f, nil, 0o644)
		c := testutil.LoadConfig(t, "../../configs/quick.yaml")
		if err := Run(context.Background(), c, Options{OutDir: filepath.Join(f, "out")}); err == nil {
			t.Fatal("want an error for an output path under a file")
		}
		return
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o555)
	c := testutil.LoadConfig(t, "../../configs/quick.yaml")
	if err := Run(context.Background(), c, Options{OutDir: filepath.Join(dir, "out")}); err == nil {
		t.Fatal("want an error for a read-only directory")
	}
}

func TestIsPaper(t *testing.T) {
	if !IsPaper(testutil.LoadConfig(t, "../../configs/synthetic.yaml")) {
		t.Error("synthetic.yaml is the paper's config")
	}
	if IsPaper(testutil.LoadConfig(t, "../../configs/synthetic-flipped.yaml")) {
		t.Error("flipped is not the paper's config")
	}
}

// Continuous actions: on the 2-D box MDP the learners' final cumulative
// reward is within 10% of the oracle's (the Gaussian family and lds.sigma
// = 0.3 make SM and LDS both well specified), they play a positive first
// action coordinate (towards the bump) about as often as the oracle in the
// last three episodes (within 1.5 of 10 steps), and the output does not
// depend on the number of workers.
func TestBoxActions(t *testing.T) {
	c := testutil.LoadConfig(t, "../../configs/nonlds-box.yaml")
	c.Seeds, c.Episodes = 3, 10
	var first []byte
	for _, w := range []int{1, 2} {
		dir := t.TempDir()
		if err := Run(context.Background(), c, Options{OutDir: dir, Workers: w}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "episodes.csv"))
		if first == nil {
			first = b
			cum, plus := final(t, dir)
			or := mean(cum["oracle"])
			late := func(a string) float64 {
				var xs []float64
				for ep := c.Episodes - 2; ep <= c.Episodes; ep++ {
					xs = append(xs, plus[a][ep]...)
				}
				return mean(xs)
			}
			for _, a := range []string{"sm", "lds"} {
				t.Logf("%s %.2f oracle %.2f; positive a0 in the last 3 episodes %.1f (oracle %.1f)", a, mean(cum[a]), or, late(a), late("oracle"))
				if mean(cum[a]) < 0.9*or {
					t.Errorf("%s: %.2f not within 10%% of the oracle's %.2f", a, mean(cum[a]), or)
				}
				if late(a) < late("oracle")-1.5 {
					t.Errorf("%s plays a positive first action coordinate %.1f times, oracle %.1f", a, late(a), late("oracle"))
				}
			}
		} else if !bytes.Equal(first, b) {
			t.Error("episodes.csv differs between 1 and 2 workers")
		}
	}
}

// A reduced CartPole comparison (configs/cartpole.yaml, noise-free, 4 seeds ×
// 12 episodes). The learners plan with W = 0 in their first episode and
// learn from its transitions on: measured on 2026-11-28 over master seeds
// 1–5 (smrl run --config configs/cartpole.yaml --seeds 4 --episodes 30
// --seed S; the first 12 episodes of a longer run are a 12-episode run's),
// episode 1 lasts 16–26 steps on average for sm and lds, episodes 8–12 last
// 96–125 for sm, 91–126 for lds and 170–190 for the oracle. Margins: the
// oracle at least 150; each learner at least 75 late and 3× its first
// episode, and below the oracle. A learner that does not learn fails both
// (with lambda 1e6, which shrinks Ŵ to 0: sm 41, lds 21 steps late). (The
// test ran 30 episodes and compared with episodes 1–3 until 2026-11-28: sm
// has learnt by episode 2, so its 1.3× margin over them failed at master
// seed 4, and 12 episodes cost 40% of the CPU.)
func TestReducedCartPole(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the RL loop")
	}
	c := testutil.LoadConfig(t, "../../configs/cartpole.yaml")
	c.Seeds, c.Episodes = 4, 12
	dir := t.TempDir()
	if err := Run(context.Background(), c, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	_, col, rows := readEpisodes(t, dir)
	early, late := map[string][]float64{}, map[string][]float64{}
	for _, r := range rows {
		ep, _ := strconv.Atoi(r[col["episode"]])
		steps, _ := strconv.ParseFloat(r[col["steps"]], 64)
		switch {
		case ep == 1:
			early[r[col["agent"]]] = append(early[r[col["agent"]]], steps)
		case ep >= 8:
			late[r[col["agent"]]] = append(late[r[col["agent"]]], steps)
		}
	}
	oracle := mean(late["oracle"])
	t.Logf("mean episode length, episode 1 → 8–12: sm %.1f → %.1f, lds %.1f → %.1f, oracle %.1f",
		mean(early["sm"]), mean(late["sm"]), mean(early["lds"]), mean(late["lds"]), oracle)
	if oracle < 150 {
		t.Errorf("oracle episodes last %.1f steps, want >= 150", oracle)
	}
	for _, a := range []string{"sm", "lds"} {
		e, l := mean(early[a]), mean(late[a])
		if l < 75 || l < 3*e || l >= oracle {
			t.Errorf("%s: episode 1 lasts %.1f steps, 8–12 %.1f; want >= 75, >= 3× episode 1, below the oracle's %.1f", a, e, l, oracle)
		}
	}
}
