package record

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readers draw from the records of a run alone; simulator is the side
// that produces them. No reader may link any of the simulator, so that
// smrl plot, which only redraws CSV files, does not link the simulator.
var (
	readers   = []string{"internal/record", "internal/results", "internal/aggregate", "internal/plotting"}
	simulator = []string{"internal/runner", "internal/agent", "internal/env", "internal/estimator", "internal/expfam"}
)

// TestReadersDoNotLinkTheSimulator walks the imports of the module's
// non-test files from the readers and fails, naming the import chain,
// when one of them reaches a simulator package.
func TestReadersDoNotLinkTheSimulator(t *testing.T) {
	root, module := moduleRoot(t)
	for _, p := range slices.Concat(readers, simulator) {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Fatalf("package %s: %v (renamed? update this test)", p, err)
		}
	}
	g := importGraph{root: root, module: module, imports: map[string][]string{}}
	for _, from := range readers {
		chain, err := g.reach(from, func(p string) bool { return slices.Contains(simulator, p) })
		if err != nil {
			t.Fatal(err)
		}
		if chain != nil {
			t.Errorf("%s links the simulator: %s", from, strings.Join(chain, " → "))
		}
	}
}

// moduleRoot returns the directory of go.mod above the test's directory
// and the module path it declares.
func moduleRoot(t *testing.T) (dir, module string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					return dir, strings.TrimSpace(m)
				}
			}
			t.Fatalf("%s: no module line", f.Name())
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// importGraph reads the module-internal imports of a package's non-test
// files on demand; packages are named by their path in the module.
type importGraph struct {
	root, module string
	imports      map[string][]string
}

// of returns the module packages that pkg's non-test .go files import
// (whatever their build constraints: a file under a tag still links in
// some build).
func (g *importGraph) of(pkg string) ([]string, error) {
	if imps, ok := g.imports[pkg]; ok {
		return imps, nil
	}
	files, err := filepath.Glob(filepath.Join(g.root, pkg, "*.go"))
	if err != nil {
		return nil, err
	}
	var imps []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		for _, s := range f.Imports {
			path, err := strconv.Unquote(s.Path.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: import %s: %w", name, s.Path.Value, err)
			}
			if p, ok := strings.CutPrefix(path, g.module+"/"); ok && !slices.Contains(imps, p) {
				imps = append(imps, p)
			}
		}
	}
	slices.Sort(imps)
	g.imports[pkg] = imps
	return imps, nil
}

// reach returns the import chain from package from to the first package
// that bad accepts, in a breadth-first walk (so a shortest chain), or
// nil when none is reachable.
func (g *importGraph) reach(from string, bad func(string) bool) ([]string, error) {
	parent := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if bad(p) {
			var chain []string
			for ; p != ""; p = parent[p] {
				chain = append(chain, p)
			}
			slices.Reverse(chain)
			return chain, nil
		}
		imps, err := g.of(p)
		if err != nil {
			return nil, err
		}
		for _, q := range imps {
			if _, seen := parent[q]; !seen {
				parent[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil, nil
}

// TestReachNamesTheChain checks the walk itself on a graph with a known
// path, so that the architecture test cannot pass by walking nothing.
func TestReachNamesTheChain(t *testing.T) {
	g := importGraph{imports: map[string][]string{
		"a":   {"b", "c"},
		"b":   {"d"},
		"c":   {"b"},
		"d":   {"bad"},
		"bad": nil,
	}}
	chain, err := g.reach("a", func(p string) bool { return p == "bad" })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "d", "bad"}; !slices.Equal(chain, want) {
		t.Errorf("chain %v, want %v", chain, want)
	}
	if chain, _ := g.reach("c", func(p string) bool { return p == "none" }); chain != nil {
		t.Errorf("chain %v to a package nobody imports", chain)
	}
}
