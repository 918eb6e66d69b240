package plotting

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testAggregate = "agent,metric,value,lo,hi\n" +
	"sm,mean,4.6,4.4,4.8\nsm,median,4.6,4.3,4.9\nsm,iqm,4.59,4.35,4.85\nsm,optimality_gap,0.02,0.01,0.03\n" +
	"lds,mean,3,2.7,3.3\nlds,median,2.8,2.7,3.5\nlds,iqm,2.9,2.7,3.4\nlds,optimality_gap,1.6,1.5,1.8\n"

const testProfile = "agent,tau,fraction,lo,hi\nsm,2,1,1,1\nsm,3,1,1,1\nsm,4,0.8,0.4,1\nsm,5,0,0,0\n" +
	"lds,2,1,1,1\nlds,3,0.4,0,0.8\nlds,4,0,0,0\nlds,5,0,0,0\n"

// TestAggregateFigures: the aggregate figures and the report section are
// drawn from aggregate.csv and profile.csv; a directory without them
// draws neither; a bad cell is an error naming the file and line.
func TestAggregateFigures(t *testing.T) {
	dir := t.TempDir()
	if figs, err := AggregateFigures(dir, dir, Options{}); err != nil || len(figs) != 0 {
		t.Fatalf("no aggregate files: figures %v, err %v", figs, err)
	}
	for name, body := range map[string]string{aggregateFile: testAggregate, profileFile: testProfile,
		improvementFile: "agent_x,agent_y,probability,lo,hi\nsm,lds,1,1,1\nlds,sm,0,0,0\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	figs, err := AggregateFigures(dir, filepath.Join(dir, "plots"), Options{})
	if err != nil || len(figs) != 2 || !strings.HasSuffix(figs[0], "interval_estimates.png") || !strings.HasSuffix(figs[1], "performance_profile.png") {
		t.Fatalf("figures %v, err %v", figs, err)
	}
	for _, f := range figs {
		if fi, err := os.Stat(f); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
	agg, err := readAggregate(dir)
	if err != nil {
		t.Fatal(err)
	}
	tabs, err := aggregateTables(dir, agg)
	if err != nil {
		t.Fatal(err)
	}
	sec := tabs.markdown("")
	for _, want := range []string{"| sm | 4.6 [4.4, 4.8] | 4.6 [4.3, 4.9] | 4.59 [4.35, 4.85] | 0.02 [0.01, 0.03] |", "| sm | – | 1 [1, 1] |"} {
		if !strings.Contains(sec, want) {
			t.Errorf("report section lacks %q:\n%s", want, sec)
		}
	}
	for _, tc := range []struct{ file, body, want string }{
		{aggregateFile, strings.Replace(testAggregate, "4.4", "abc", 1), "line 2"},
		{profileFile, strings.Replace(testProfile, "sm,3,", "sm,1,", 1), "line 3"},
	} {
		bad := t.TempDir()
		os.WriteFile(filepath.Join(bad, aggregateFile), []byte(testAggregate), 0o644)
		os.WriteFile(filepath.Join(bad, profileFile), []byte(testProfile), 0o644)
		os.WriteFile(filepath.Join(bad, tc.file), []byte(tc.body), 0o644)
		if _, err := readAggregate(bad); err == nil || !strings.Contains(err.Error(), tc.file) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("bad %s: err %v, want one naming the file and %s", tc.file, err, tc.want)
		}
	}
}
