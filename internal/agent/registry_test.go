package agent

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
)

// TestRegistryProperties: the regret baseline and learning are properties
// of the registrations: the oracle alone is the baseline; lqr fits
// nothing and is not a baseline (every reader pairs its regret against
// the oracle's, as the results table always did); every estimator's
// agents learn and may cross-validate λ; the methods of smrl estimate are
// the estimators in registration order.
func TestRegistryProperties(t *testing.T) {
	var baselines []string
	for _, p := range config.Parts("agents") {
		k, ok := Lookup(p.Name)
		if !ok {
			t.Errorf("agent %s: in config's registry but not agent's", p.Name)
			continue
		}
		if p.Baseline {
			baselines = append(baselines, p.Name)
		}
		if config.IsBaseline(p.Name) != p.Baseline {
			t.Errorf("config.IsBaseline(%s) = %v", p.Name, !p.Baseline)
		}
		if Learns(p.Name) != (k.Estimator != nil) || (k.Estimator == nil) == (k.Build == nil) {
			t.Errorf("agent %s: Learns %v, estimator %v, build %v", p.Name, Learns(p.Name), k.Estimator != nil, k.Build != nil)
		}
		if k.Estimator != nil && (!p.LambdaCV || p.FitFloats == nil) {
			t.Errorf("learner %s: LambdaCV %v, FitFloats set %v", p.Name, p.LambdaCV, p.FitFloats != nil)
		}
	}
	if !slices.Equal(baselines, []string{"oracle"}) {
		t.Errorf("baselines %v, want [oracle]", baselines)
	}
	if Learns("lqr") || config.IsBaseline("lqr") || Learns("oracle") || Learns("nobody") {
		t.Errorf("Learns(lqr) %v, IsBaseline(lqr) %v, Learns(oracle) %v, Learns(nobody) %v",
			Learns("lqr"), config.IsBaseline("lqr"), Learns("oracle"), Learns("nobody"))
	}
	if got := EstimatorNames(); !slices.Equal(got[:5], []string{"sm", "lds", "mle", "sm-kernel", "sm-plain"}) {
		t.Errorf("EstimatorNames() = %v", got)
	}
	if got := DefaultEstimators(); !slices.Equal(got, []string{"sm", "lds", "mle"}) {
		t.Errorf("DefaultEstimators() = %v", got)
	}
	for _, name := range []string{"sm-kernel", "sm-plain"} {
		if _, ok := Lookup(name); ok {
			t.Errorf("%s is a method of smrl estimate only, but an agent", name)
		}
	}
	// The -ucb and -ps agents hold the confidence set's matrices beside
	// the estimator's.
	g, _ := Lookup("sm")
	u, _ := Lookup("sm-ucb")
	if a, b := g.FitFloats(3, 2, 10, false), u.FitFloats(3, 2, 10, false); b != 2*a || a != 2*3*20*20 {
		t.Errorf("FitFloats sm %v, sm-ucb %v; want 2400 and twice that", a, b)
	}
}

// TestOracleComparedInItsRegistrationOnly: no non-test code outside
// package agent (the registration) and config (the embedded defaults)
// compares a name with the literal "oracle" (==, != or a case): the
// baseline is config.IsBaseline, learning agent.Learns.
func TestOracleComparedInItsRegistrationOnly(t *testing.T) {
	root := filepath.Join("..", "..")
	allowed := []string{"internal/agent", "internal/config"}
	var bad []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		if slices.Contains(allowed, filepath.ToSlash(rel)) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		isOracle := func(e ast.Expr) bool {
			l, ok := e.(*ast.BasicLit)
			return ok && l.Kind == token.STRING && l.Value == `"oracle"`
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isOracle(n.X) || isOracle(n.Y)) {
					bad = append(bad, fset.Position(n.Pos()).String())
				}
			case *ast.CaseClause:
				if slices.ContainsFunc(n.List, isOracle) {
					bad = append(bad, fset.Position(n.Pos()).String())
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("the literal \"oracle\" compared outside its registration: %s", strings.Join(bad, ", "))
	}
}
