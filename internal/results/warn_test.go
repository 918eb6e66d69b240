package results

import (
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/record"
)

// trial returns the rows of one trial of k episodes of 10 steps, each with
// refit diagnostics cond, minEigN and a step of 0.1 (W = [1, 0]), and
// counts of two actions (10 steps of the first).
func trial(agent string, k int, cond, minEigN float64) []Row {
	rows := make([]Row, k)
	for i := range rows {
		rows[i] = Row{Agent: agent, Seed: 1, Episode: i + 1, Steps: 10, W: []float64{1, 0},
			Diag: &record.Diag{Cond: cond, MinEigN: minEigN, WStep: 0.1}, Actions: []int{10, 0}}
	}
	return rows
}

// kinds returns the kinds of ws, joined.
func kinds(ws []Warning) string {
	var k []string
	for _, w := range ws {
		k = append(k, w.Kind)
	}
	return strings.Join(k, ",")
}

// Each warning fires just past its threshold and not just before it, once
// per trial, and names what helps.
func TestWarningThresholds(t *testing.T) {
	in := WarnInput{Lambda: func(string) float64 { return 1e-4 }}
	const k = 10 // n = 100 transitions
	for _, tc := range []struct {
		name  string
		rows  []Row
		want  string
		words string
	}{
		{"cond below", trial("sm", k, 0.99e8, 0.01), "", ""},
		{"cond above", trial("sm", k, 1.01e8, 0.01), "cond", "lambda"},
		// λ_min(V) = n·min_eig_n against MinEigLimit = 0.25 (n = 100).
		{"min eig above", trial("sm", k, 10, 0.0026), "", ""},
		{"min eig below", trial("sm", k, 10, 0.0024), "min_eig", "sm-ps, sm-ucb"},
		// Below λ the ridge sets the direction: no warning.
		{"min eig below λ", trial("sm", k, 10, 0.9e-6), "", ""},
		{"min eig at λ", trial("sm", k, 10, 1.01e-6), "min_eig", "lambda"},
	} {
		ws := Warnings(tc.rows, in)
		if got := kinds(ws); got != tc.want {
			t.Errorf("%s: warnings %q, want %q: %v", tc.name, got, tc.want, ws)
			continue
		}
		for _, w := range ws {
			if !strings.HasPrefix(w.String(), "warning: agent sm seed 1 ") || !strings.Contains(w.Text, tc.words) {
				t.Errorf("%s: %q lacks %q", tc.name, w, tc.words)
			}
		}
	}
}

// A late step warns when it exceeds both |Ŵ_k|_F and every step of the
// first third; an action warns when never played in the whole trial, with
// its value; the oracle (no diagnostics) never warns.
func TestWarningStepsAndActions(t *testing.T) {
	in := WarnInput{Actions: [][]float64{{1}, {-1}}}
	rows := trial("sm", 9, 10, 1)
	rows[0].Diag.WStep = 2 // the first refit's step from W = 0
	rows[8].Diag.WStep = 1.5
	if ws := Warnings(rows, in); kinds(ws) != "action" {
		t.Errorf("step below the early ones: %v", ws)
	}
	rows[8].Diag.WStep = 2.5
	ws := Warnings(rows, in)
	if kinds(ws) != "w_step,action" || !strings.Contains(ws[0].Text, "episode 9") {
		t.Fatalf("late jump: %v", ws)
	}
	if a := ws[1].String(); !strings.Contains(a, "never played 1 of 2 actions in 9 episodes: 1 (a = [-1]);") || !strings.Contains(a, "extrapolated") || !strings.Contains(a, "env.actions") {
		t.Errorf("action warning: %s", a)
	}
	// Many unplayed actions: one line for the trial, naming at most
	// maxListedActions of them.
	many := WarnInput{Actions: make([][]float64, 200)}
	for i := range many.Actions {
		many.Actions[i] = []float64{float64(i) / 100}
	}
	wide := trial("sm", 2, 10, 1)
	for i := range wide {
		wide[i].Actions = make([]int, 200)
		wide[i].Actions[0] = wide[i].Steps
	}
	ws = Warnings(wide, many)
	if kinds(ws) != "action" || !strings.Contains(ws[0].Text, "never played 199 of 200 actions") || !strings.Contains(ws[0].Text, "5 (a = [0.05]) and 194 more;") {
		t.Errorf("200 actions, one played: %v", ws)
	}
	rows[0].W = []float64{3, 0} // |Ŵ| above the step: a settled estimate
	rows[8].W = []float64{3, 0}
	rows[3].Actions = []int{9, 1} // played once: not "never"
	if ws := Warnings(rows, in); len(ws) != 0 {
		t.Errorf("no jump, every action played: %v", ws)
	}
	oracle := trial("oracle", 9, 1e9, 0)
	for i := range oracle {
		oracle[i].Diag = nil
	}
	if ws := Warnings(oracle, in); len(ws) != 0 {
		t.Errorf("oracle: %v", ws)
	}
	bad := trial("sm", 9, 1e9, 0.001) // cond and min_eig on seed 0
	for i := range bad {
		bad[i].Seed = 0
	}
	if f := FlagSeeds(Warnings(append(bad, rows...), in)); f["sm"] != 1 {
		t.Errorf("flagged seeds %v, want sm: 1 (one seed, two warnings)", f)
	}
}

// A trial whose every refit left Ŵ at its start gets one w_still
// warning; one step other than 0 (or no refit diagnostics) gets none.
func TestWarnModelNeverChanged(t *testing.T) {
	rows := func(steps ...float64) []Row {
		var out []Row
		for i, s := range steps {
			out = append(out, Row{Agent: "sm", Seed: 3, Episode: i + 1, Steps: 10, Diag: &record.Diag{Cond: 2, MinEigN: 1, WStep: s}})
		}
		return out
	}
	count := func(ws []Warning) int {
		n := 0
		for _, w := range ws {
			if w.Kind == "w_still" {
				n++
				if !strings.Contains(w.String(), "agent sm seed 3 model never changed: every one of its 3 refits") {
					t.Errorf("text %q", w.String())
				}
			}
		}
		return n
	}
	if n := count(Warnings(rows(0, 0, 0), WarnInput{})); n != 1 {
		t.Errorf("w_step 0, 0, 0: %d w_still warnings, want 1", n)
	}
	if n := count(Warnings(rows(0, 1e-300, 0), WarnInput{})); n != 0 {
		t.Errorf("one step 1e-300: %d w_still warnings, want 0", n)
	}
	oracle := []Row{{Agent: "oracle", Seed: 3, Episode: 1, Steps: 10}}
	if n := count(Warnings(oracle, WarnInput{})); n != 0 {
		t.Errorf("no diagnostics: %d w_still warnings, want 0", n)
	}
}
