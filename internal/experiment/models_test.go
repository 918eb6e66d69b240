package experiment

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimate"
	"github.com/smrl-dev/smrl/internal/runner"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// --save-models writes one model file per trial of a learning agent (none
// for the oracle): the agent's final Ŵ (the last W of episodes.csv, to
// 1e-12), the λ and the n of its last fit, which a refit of the run's own
// transitions gives back, and which estimate.ReadModel and Evaluate
// accept; the files do not depend on the number of workers, and a fresh
// run without the flag removes them.
func TestSaveModels(t *testing.T) {
	c := testutil.LoadConfig(t, "../../configs/quick.yaml")
	c.Agents, c.Seeds, c.Episodes = []string{"sm", "lds", "mle", "sm-ps", "oracle"}, 2, 3
	c.Stats.BootstrapReps = fewDraws
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var dir string
	for _, w := range []int{1, 2} {
		dir = t.TempDir()
		if err := Run(context.Background(), c, Options{OutDir: dir, Workers: w, SaveModels: true, SaveTransitions: true}); err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(filepath.Join(dir, ModelsDir))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
			b, err := os.ReadFile(filepath.Join(dir, ModelsDir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if w == 1 {
				files[e.Name()] = b
			} else if !bytes.Equal(b, files[e.Name()]) {
				t.Errorf("%s differs between 1 and 2 workers", e.Name())
			}
		}
		want := []string{"lds-seed0.json", "lds-seed1.json", "mle-seed0.json", "mle-seed1.json", "sm-ps-seed0.json", "sm-ps-seed1.json", "sm-seed0.json", "sm-seed1.json"}
		if !slices.Equal(names, want) {
			t.Fatalf("models/ holds %v, want %v", names, want)
		}
	}
	trans := filepath.Join(dir, TransitionsFile)
	for _, agent := range []string{"sm", "lds", "mle", "sm-ps"} {
		method, _, _ := strings.Cut(agent, "-")
		for seed := range c.Seeds {
			name := filepath.Join(dir, ModelsDir, ModelFileName(agent, seed))
			mf, mc, err := estimate.ReadModel(name)
			if err != nil {
				t.Fatal(err)
			}
			w, _, steps := lastW(t, dir, agent, seed)
			n := 0
			for _, s := range steps {
				n += s
			}
			if len(mf.Models) != 1 || mf.Models[0].Method != method || mf.N != n || mf.Lambda != c.Lambda || mc.Name != c.Name {
				t.Fatalf("%s: method %v, n %d, λ %v, config %q; want %s, %d, %v, %q", name, mf.Models, mf.N, mf.Lambda, mc.Name, method, n, c.Lambda, c.Name)
			}
			var got []float64
			for _, row := range mf.Models[0].W {
				got = append(got, row...)
			}
			f := dataset.Filter{Agent: agent, Seeds: []int{seed}}
			refit := refitLog(t, trans, f, method, mdp, c.Lambda)
			if len(got) != len(w) || len(refit) != len(w) {
				t.Fatalf("%s: W has %d entries, episodes.csv %d, the refit %d", name, len(got), len(w), len(refit))
			}
			testutil.CloseSlices(t, name+": W against episodes.csv", got, w, 1e-12)
			for i := range w {
				tol := 1e-12 * math.Max(1, math.Abs(w[i]))
				// mle is an iterative fit warm-started by the agent: its
				// optimum agrees to the solver's tolerance only.
				if d := math.Abs(refit[i] - got[i]); d > tol && (method != "mle" || d > 1e-6) {
					t.Fatalf("%s: W[%d] = %v, a refit of the trial's transitions %v", name, i, got[i], refit[i])
				}
			}
			ev, err := estimate.Evaluate(context.Background(), mf, mc, trans, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(ev) != 1 || ev[0].N != n || math.IsNaN(ev[0].SMLoss) {
				t.Fatalf("%s: evaluation %+v", name, ev)
			}
		}
	}
	// A fresh run into the directory without --save-models removes them.
	if err := Run(context.Background(), c, Options{OutDir: dir, Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ModelsDir)); !os.IsNotExist(err) {
		t.Errorf("after --overwrite without --save-models: models/ remains (%v)", err)
	}
}

// A models/ of smrl's own results directory that is a link (to a folder
// of the user's holding a model smrl wrote, which a fresh run would
// delete through it) or, with --save-models, a file of the user's is
// refused as invalid input naming it, before anything is changed: by a
// run and by a sweep point.
func TestModelsDirRefused(t *testing.T) {
	c := testutil.LoadConfig(t, "../../configs/quick.yaml")
	c.Seeds, c.Episodes, c.Stats.BootstrapReps = 1, 2, fewDraws
	base := t.TempDir()
	if err := Run(context.Background(), c, Options{OutDir: base, SaveModels: true}); err != nil {
		t.Fatal(err)
	}
	model := readFile(t, filepath.Join(base, ModelsDir), ModelFileName("sm", 0))
	s := tinySweep(t)
	sweepRoot := filepath.Join(t.TempDir(), "sweep")
	if err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: sweepRoot, SaveModels: true}}); err != nil {
		t.Fatal(err)
	}
	link := func(dir, user string) error { return os.Symlink(user, filepath.Join(dir, ModelsDir)) }
	file := func(dir, _ string) error { return os.WriteFile(filepath.Join(dir, ModelsDir), []byte("mine\n"), 0o644) }
	for _, tc := range []struct {
		name       string
		plant      func(dir, user string) error
		saveModels bool
		sweep      bool
		frag       string
	}{
		{"link, run without --save-models", link, false, false, "is a symbolic link"},
		{"link, run with --save-models", link, true, false, "is a symbolic link"},
		{"file, run with --save-models", file, true, false, "is not a folder"},
		{"link, sweep", link, false, true, "is a symbolic link"},
		{"file, sweep with --save-models", file, true, true, "is not a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "out")
			src, dir := base, root
			if tc.sweep {
				src, dir = sweepRoot, filepath.Join(root, s.Points[0].Name)
			}
			if err := os.CopyFS(root, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			user := t.TempDir()
			if err := os.WriteFile(filepath.Join(user, "kept.json"), model, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(filepath.Join(dir, ModelsDir)); err != nil {
				t.Fatal(err)
			}
			if err := tc.plant(dir, user); err != nil {
				t.Fatal(err)
			}
			before, userBefore := snapshot(t, root), snapshot(t, user)
			opt := Options{OutDir: root, Overwrite: true, SaveModels: tc.saveModels}
			var err error
			if tc.sweep {
				err = RunSweep(context.Background(), s, SweepOptions{Options: opt})
			} else {
				err = Run(context.Background(), c, opt)
			}
			if !errors.Is(err, errs.ErrInvalidInput) {
				t.Fatalf("err = %v, want ErrInvalidInput", err)
			}
			for _, f := range []string{filepath.Join(dir, ModelsDir), tc.frag} {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("error %q does not mention %q", err, f)
				}
			}
			sameTree(t, root, before, "refused run")
			sameTree(t, user, userBefore, "the user's folder")
		})
	}
}

// --save-models with --resume is refused before anything is written.
func TestSaveModelsNoResume(t *testing.T) {
	c := testutil.LoadConfig(t, "../../configs/quick.yaml")
	dir := t.TempDir()
	err := Run(context.Background(), c, Options{OutDir: dir, SaveModels: true, Resume: true})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "--save-models") {
		t.Fatalf("err = %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused run wrote %d entries", len(ents))
	}
}

// A sweep with SaveModels writes each point's models as smrl run writes
// them for the point's config, byte for byte; with a shard it is refused.
func TestSweepSaveModels(t *testing.T) {
	s := tinySweep(t)
	root := filepath.Join(t.TempDir(), "sweep")
	if err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: root, Workers: 2, SaveModels: true}}); err != nil {
		t.Fatal(err)
	}
	p := s.Points[len(s.Points)-1]
	one := t.TempDir()
	if err := Run(context.Background(), p.Config, Options{OutDir: one, Workers: 1, SaveModels: true}); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"sm", "lds"} {
		for seed := range p.Config.Seeds {
			name := filepath.Join(ModelsDir, ModelFileName(agent, seed))
			if !bytes.Equal(readFile(t, filepath.Join(root, p.Name), name), readFile(t, one, name)) {
				t.Errorf("point %s: %s differs from smrl run's", p.Name, name)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(root, p.Name, ModelsDir, ModelFileName("oracle", 0))); !os.IsNotExist(err) {
		t.Errorf("the oracle has a model file (%v)", err)
	}
	err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: t.TempDir(), SaveModels: true, Shard: runner.Shard{Index: 0, Count: 2}}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "shard") {
		t.Fatalf("sharded sweep with SaveModels: err = %v", err)
	}
}
