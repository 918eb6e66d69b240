package experiment

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/results"
)

// The fixtures testdata/v1-results and testdata/v1-shards were written by
// smrl before results.FormatVersion 2 (commit 68a1240): metadata.json
// without format_version, and episodes.csv holding Ŵ of 3 × 24 = 72 > 64
// entries (pendulum, rff features of dimension 24, agents sm and oracle,
// 2 seeds of 2 episodes of 10 steps; v1-results with --save-models and
// --save-transitions, v1-shards as shards 0/2 and 1/2 of the same run).
// Version 2 writes that Ŵ to w.csv; these tests check that the readers of
// today take the old layout and that rewriting gives the same numbers.

// copyFixture copies the fixture directory testdata/name into a fresh
// temporary directory, which it returns: the tests never write into
// testdata.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("testdata", name)
	dst := filepath.Join(t.TempDir(), name)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

var wOrSE = regexp.MustCompile(`^(w|se)_\d+_\d+$`)

// splitV1 splits an episodes.csv of format version 1 into the episodes.csv
// and w.csv that version 2 writes for it when Ŵ goes to w.csv: the first
// without the w_i_j and se_i_j columns, the second with agent, seed,
// episode and those columns for the rows that have a Ŵ.
func splitV1(t *testing.T, v1 []byte) (episodes, w []byte) {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(v1)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var keep, wcols []int
	for j, h := range recs[0] {
		if wOrSE.MatchString(h) {
			wcols = append(wcols, j)
		} else {
			keep = append(keep, j)
		}
	}
	var eb, wb bytes.Buffer
	ew, ww := csv.NewWriter(&eb), csv.NewWriter(&wb)
	for i, r := range recs {
		var e, x []string
		for _, j := range keep {
			e = append(e, r[j])
		}
		ew.Write(e)
		empty := true
		x = append(x, r[0], r[1], r[2])
		for _, j := range wcols {
			x = append(x, r[j])
			empty = empty && r[j] == ""
		}
		if i == 0 || !empty {
			ww.Write(x)
		}
	}
	ew.Flush()
	ww.Flush()
	return eb.Bytes(), wb.Bytes()
}

// fixtureConfig loads the config snapshot of a fixture directory.
func fixtureConfig(t *testing.T, dir string) *config.Config {
	t.Helper()
	c, err := config.Load(config.Options{Path: filepath.Join(dir, results.ConfigFile), Snapshot: true})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkV2Split checks that dir holds version 2's files for the run of the
// version 1 fixture v1: metadata.json with format_version 2, episodes.csv
// and w.csv that are the fixture's episodes.csv split (splitV1), and the
// same summary.csv.
func checkV2Split(t *testing.T, v1, dir string) {
	t.Helper()
	if v, err := results.ReadFormatVersion(dir); err != nil || v != results.FormatVersion {
		t.Errorf("format version of the rewritten directory: %d, %v; want %d", v, err, results.FormatVersion)
	}
	ep, w := splitV1(t, readFile(t, v1, results.EpisodesFile))
	if got := readFile(t, dir, results.EpisodesFile); !bytes.Equal(got, ep) {
		t.Errorf("episodes.csv is not the version 1 file without its W columns:\n%s\nwant\n%s", got, ep)
	}
	if got := readFile(t, dir, results.WFile); !bytes.Equal(got, w) {
		t.Errorf("w.csv is not the version 1 file's W columns:\n%.400s\nwant\n%.400s", got, w)
	}
	if !bytes.Equal(readFile(t, dir, results.SummaryFile), readFile(t, v1, results.SummaryFile)) {
		t.Error("summary.csv differs from the version 1 file")
	}
}

// A version 1 directory (no format_version, a Ŵ of 72 entries in
// episodes.csv) is drawn as it is: its files agree with its journal in
// the version 1 layout.
func TestFormatV1Plots(t *testing.T) {
	dir := copyFixture(t, "v1-results")
	if v, err := results.ReadFormatVersion(dir); err != nil || v != 1 {
		t.Fatalf("fixture's format version: %d, %v; want 1", v, err)
	}
	figs, err := Plot(dir, filepath.Join(t.TempDir(), "figs"), "svg")
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) == 0 {
		t.Fatal("no figures drawn")
	}
	// The same directory claiming version 2 has the W columns where
	// version 2 never writes them: the check against the journal fails.
	meta := readFile(t, dir, results.MetadataFile)
	os.WriteFile(filepath.Join(dir, results.MetadataFile), bytes.Replace(meta, []byte(`"trials": 4`), []byte(`"trials": 4, "format_version": 2`), 1), 0o644)
	if _, err := Plot(dir, filepath.Join(t.TempDir(), "figs"), "svg"); !errors.Is(err, errs.ErrInvalidInput) {
		t.Errorf("version 1 files under format_version 2: err = %v, want invalid input", err)
	}
	// A later version than this smrl's is refused, naming the field.
	os.WriteFile(filepath.Join(dir, results.MetadataFile), bytes.Replace(meta, []byte(`"trials": 4`), []byte(`"trials": 4, "format_version": 99`), 1), 0o644)
	if _, err := Plot(dir, filepath.Join(t.TempDir(), "figs"), "svg"); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "format_version 99") {
		t.Errorf("format_version 99: err = %v, want invalid input naming it", err)
	}
}

// Resuming a version 1 directory (its last trial dropped from the
// journal) rewrites it in version 2: the same numbers, Ŵ in w.csv.
func TestFormatV1Resume(t *testing.T) {
	v1 := filepath.Join("testdata", "v1-results")
	dir := copyFixture(t, "v1-results")
	j := readFile(t, dir, results.JournalFile)
	lines := bytes.SplitAfter(bytes.TrimSuffix(j, []byte("\n")), []byte("\n"))
	os.WriteFile(filepath.Join(dir, results.JournalFile), bytes.Join(lines[:len(lines)-1], nil), 0o644)
	c := fixtureConfig(t, dir)
	if err := Run(context.Background(), c, Options{OutDir: dir, Resume: true}); err != nil {
		t.Fatal(err)
	}
	checkV2Split(t, v1, dir)
	if _, err := Plot(dir, filepath.Join(t.TempDir(), "figs"), "svg"); err != nil {
		t.Errorf("drawing the resumed directory: %v", err)
	}
}

// Merging the shards of a version 1 run writes the single run's numbers
// in version 2.
func TestFormatV1Merge(t *testing.T) {
	shards := copyFixture(t, "v1-shards")
	out := filepath.Join(t.TempDir(), "merged")
	in := []string{filepath.Join(shards, "shard-0-of-2"), filepath.Join(shards, "shard-1-of-2")}
	if err := Merge(context.Background(), in, Options{OutDir: out}); err != nil {
		t.Fatal(err)
	}
	checkV2Split(t, filepath.Join("testdata", "v1-results"), out)
}

// A small Ŵ stays in episodes.csv unless stats.save_w; with it, w.csv
// holds it and the numbers are those of the run without.
func TestSaveWMovesW(t *testing.T) {
	c := quick(t)
	c.Seeds, c.Episodes = 2, 2
	ref := t.TempDir()
	if err := Run(context.Background(), c, Options{OutDir: ref}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ref, results.WFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a run with a Ŵ of 2 entries wrote w.csv (%v)", err)
	}
	c.Stats.SaveW = true
	dir := t.TempDir()
	if err := Run(context.Background(), c, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	checkV2Split(t, ref, dir)
	if _, err := Plot(dir, filepath.Join(t.TempDir(), "figs"), "svg"); err != nil {
		t.Errorf("drawing a run with w.csv: %v", err)
	}
	// Rerunning without save_w into the same directory removes its w.csv.
	c.Stats.SaveW = false
	if err := Run(context.Background(), c, Options{OutDir: dir, Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, results.WFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("w.csv of the earlier run outlived a run without it (%v)", err)
	}
}

// The plot keys change no result: a resume or a merge across runs that
// differ in them is allowed, as across workers; save_w is not ignored.
func TestPlotKeysIgnoredByConfigDiff(t *testing.T) {
	a := quick(t)
	b := *a
	b.Plot.Smooth, b.Plot.SeedLines, b.Plot.Width, b.Plot.Height, b.Plot.FontSize = 5, true, 1000, 700, 18
	if k, va, vb, err := configDiff(a, &b); err != nil || k != "" {
		t.Errorf("configs differing in plot keys: diff %s (%s vs %s), %v", k, va, vb, err)
	}
	b.Stats.SaveW = true
	if k, _, _, err := configDiff(a, &b); err != nil || k != "stats.save_w" {
		t.Errorf("configs differing in stats.save_w: diff %q, %v; want stats.save_w", k, err)
	}
}
