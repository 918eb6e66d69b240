package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// dirFiles returns the names and contents of the files in dir.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out[e.Name()] = string(b)
	}
	return out
}

// smrl estimate and smrl plot --sweep replace a file at a path the user
// gave only when smrl wrote it: a file of the user's is refused with exit
// 2 naming it, before any work (a long sweep or estimate fails at once),
// and everything is left as it was.
func TestUserFilesAreNotReplaced(t *testing.T) {
	const sweepCSV = "method,n,repeat,frobenius_error\nsm,10,0,0.5\nsm,20,0,0.3\n"
	long := []string{"estimate", "--sweep-n", "100000,200000", "--repeats", "50"}
	for _, tc := range []struct {
		name  string
		files map[string]string // the user's files
		args  []string          // DIR/ is the test's directory
		path  string            // the refused file
	}{
		{"estimate sweep CSV", map[string]string{"mine.csv": "precious\n"},
			append(long, "--out", "DIR/mine.csv"), "mine.csv"},
		{"estimate sweep CSV of another kind", map[string]string{"mine.csv": "agent,seed,episode\nsm,0,1\n"},
			append(long, "--out", "DIR/mine.csv"), "mine.csv"},
		{"estimate sweep figure", map[string]string{"mine.png": "img\n"},
			append(long, "--out", "DIR/mine.csv"), "mine.png"},
		{"estimate --plot png", map[string]string{"d.png": "img\n"},
			[]string{"estimate", "--n", "2000000", "--plot", "DIR/d.png"}, "d.png"},
		{"estimate --plot svg", map[string]string{"d.svg": `<?xml version="1.0"?>` + "\n<svg/>\n"},
			[]string{"estimate", "--n", "2000000", "--plot", "DIR/d.svg"}, "d.svg"},
		{"estimate --plot pdf", map[string]string{"d.pdf": "%PDF-1.4\n/Creator (me)\n%%EOF\n"},
			[]string{"estimate", "--n", "2000000", "--plot", "DIR/d.pdf"}, "d.pdf"},
		{"plot --sweep", map[string]string{"s.csv": sweepCSV, "s.png": "img\n"},
			[]string{"plot", "--sweep", "DIR/s.csv"}, "s.png"},
		{"plot --sweep --out", map[string]string{"s.csv": sweepCSV, "f.svg": "<svg/>\n"},
			[]string{"plot", "--sweep", "DIR/s.csv", "--format", "svg", "--out", "DIR/f.svg"}, "f.svg"},
		{"plot --sweep --out without extension", map[string]string{"s.csv": sweepCSV, "f.pdf": "%PDF-1.4\n"},
			[]string{"plot", "--sweep", "DIR/s.csv", "--format", "pdf", "--out", "DIR/f"}, "f.pdf"},
		{"plot --sweep over its own input", map[string]string{"s.png": sweepCSV},
			[]string{"plot", "--sweep", "DIR/s.png"}, "s.png"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				writeFile(t, dir, name, content)
			}
			args := slices.Clone(tc.args)
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, "DIR/", dir+string(filepath.Separator))
			}
			start := time.Now()
			code, stdout, stderr := run(t, args...)
			wantUsage(t, code, stdout, stderr, filepath.Join(dir, tc.path), "smrl never replaces a file it did not write")
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("refused after %v: the check must come before the work", d)
			}
			got := dirFiles(t, dir)
			for name := range got {
				if _, ok := tc.files[name]; !ok {
					t.Errorf("%s was written", name)
				}
			}
			for name, content := range tc.files {
				if got[name] != content {
					t.Errorf("%s was changed", name)
				}
			}
		})
	}
}

// The same command run twice replaces the files it wrote the first time:
// they carry smrl's mark (the sweep CSV its header).
func TestSmrlReplacesItsOwnFiles(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, args := range [][]string{
		{"estimate", "--sweep-n", "50,100", "--repeats", "2", "--method", "lds", "--out", p("s.csv")},
		{"plot", "--sweep", p("s.csv"), "--format", "svg"},
		{"plot", "--sweep", p("s.csv"), "--format", "pdf", "--out", p("f")},
		{"estimate", "--n", "200", "--method", "lds", "--plot", p("d.png")},
		{"estimate", "--n", "200", "--method", "lds", "--plot", p("d.svg")},
		{"estimate", "--n", "200", "--method", "lds", "--plot", p("d.pdf")},
	} {
		mustRun(t, args...)
		mustRun(t, args...)
	}
	want := []string{"d.pdf", "d.png", "d.svg", "f.pdf", "s-diagnostics.png", "s.csv", "s.png", "s.svg"}
	var got []string
	for name := range dirFiles(t, dir) {
		got = append(got, name)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
}

// An output path that cannot be a file is exit 2 with the reason, before
// any work, and nothing is created: a missing directory for estimate's
// --out and --plot, a directory for plot --sweep's --out.
func TestOutputPathsThatCannotBeFiles(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "s.csv")
	if err := os.WriteFile(csv, []byte("method,n,repeat,frobenius_error\nsm,10,0,0.5\nsm,20,0,0.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"estimate", "--sweep-n", "100000,200000", "--repeats", "50", "--out", filepath.Join(missing, "e.csv")}, "missing does not exist"},
		{[]string{"estimate", "--n", "100000", "--plot", filepath.Join(missing, "d.png")}, "missing does not exist"},
		{[]string{"plot", "--sweep", csv, "--out", dir + "/"}, "names a directory"},
		{[]string{"plot", "--sweep", csv, "--out", dir}, "is a directory"},
	} {
		start := time.Now()
		code, _, stderr := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, stderr, tc.want)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%v: refused after %v, not before the work", tc.args, d)
		}
	}
	if got := slices.Sorted(maps.Keys(dirFiles(t, dir))); !slices.Equal(got, []string{"s.csv"}) {
		t.Errorf("the refused commands left %v in %s", got, dir)
	}
}

// Issue 12, data loss 1: --out into a directory smrl did not make used to
// delete report.md and plots/fig.png and overwrite a commented config.yaml.
func TestOutIntoUserDirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "plots"), 0o755)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("# notes\nseeds: 1\nepisodes: 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "plots", "fig.png"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "report.md"), []byte("x"), 0o644)
	before := snapshot(t, dir)
	code, stdout, stderr := run(t, "run", "--config", filepath.Join(dir, "config.yaml"), "--out", dir, "--no-plots", "-q")
	wantUsage(t, code, stdout, stderr, dir, "not empty", "not made by smrl")
	sameSnapshot(t, "a refused run", before, snapshot(t, dir))

	// --out . from inside it, as in the report.
	t.Chdir(dir)
	code, stdout, stderr = run(t, "run", "--config", "config.yaml", "--out", ".", "--no-plots", "-q")
	wantUsage(t, code, stdout, stderr, "not empty")
	sameSnapshot(t, "--out .", before, snapshot(t, dir))
	// compare and plot --out refuse it too; merge --out as well.
	code, stdout, stderr = run(t, "compare", "--config", "config.yaml", "--out", dir, "--no-plots", "-q")
	wantUsage(t, code, stdout, stderr, "not empty")
	sameSnapshot(t, "compare", before, snapshot(t, dir))
}

// Issue 19, item 1: a journal.jsonl, .smrl-lock or plots/ planted as a symbolic link
// inside smrl's own directory was written (or deleted) through. Now every
// command refuses it with exit 2 naming the link, and the user's files the
// link points to are untouched. (A fresh run over the finished directory
// needs --overwrite since issue 18, a merge since issue 35: without it the
// command is refused before it opens anything.)
func TestLinksInOwnDirectoryAreNotFollowed(t *testing.T) {
	for _, tc := range []struct {
		name string
		link string // the entry of the results directory made a link
		dir  bool   // the link's target is a folder (plots/)
		args []string
	}{
		{"journal, fresh run", "journal.jsonl", false, []string{"run", "-q", "--no-plots", "--overwrite"}},
		{"journal, resume", "journal.jsonl", false, []string{"run", "-q", "--no-plots", "--resume"}},
		{"lock, fresh run", ".smrl-lock", false, []string{"run", "-q", "--no-plots", "--overwrite"}},
		{"plots, run", "plots", true, []string{"run", "-q", "--plot-format", "svg", "--overwrite"}},
		{"plots, run --no-plots", "plots", true, []string{"run", "-q", "--no-plots", "--overwrite"}},
		{"plots, plot in place", "plots", true, []string{"plot", "--format", "svg"}},
		{"plots, merge", "plots", true, []string{"merge", "-q", "--plot-format", "svg", "--overwrite"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, cfg := tinyRun(t, "--no-plots") // the link replaces plots/ if any
			user := t.TempDir()
			target := filepath.Join(user, "precious.txt")
			os.WriteFile(target, []byte("precious\n"), 0o644)
			if tc.dir {
				target = user
				os.WriteFile(filepath.Join(user, "cum_reward.svg"), []byte("mine\n"), 0o644)
			}
			var args []string
			switch tc.args[0] {
			case "plot":
				args = append(tc.args, "--in", out)
			case "merge":
				shard, _ := tinyRun(t, "--no-plots") // a finished run is a shard of one
				args = append(tc.args, shard, "--out", out)
			default:
				args = append(tc.args, "--config", cfg, "--out", out, "--workers", "1")
			}
			link := filepath.Join(out, tc.link)
			os.RemoveAll(link)
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, user)
			code, stdout, stderr := run(t, args...)
			wantUsage(t, code, stdout, stderr, link, "is a symbolic link", "remove the link")
			sameSnapshot(t, strings.Join(args, " "), before, snapshot(t, user))
		})
	}
}
