package aggregate

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/smrl-dev/smrl/internal/fsutil"
)

// The files Write writes into a results or sweep directory.
const (
	AggregateFile   = "aggregate.csv"
	ImprovementFile = "improvement.csv"
	ProfileFile     = "profile.csv"
)

// Files lists the files of Write, for the cleaning of a fresh run.
var Files = []string{AggregateFile, ImprovementFile, ProfileFile}

// Headers of the files.
var (
	AggregateHeader   = []string{"agent", "metric", "value", "lo", "hi"}
	ImprovementHeader = []string{"agent_x", "agent_y", "probability", "lo", "hi"}
	ProfileHeader     = []string{"agent", "tau", "fraction", "lo", "hi"}
)

// Write writes the three files of r into dir, each atomically. Numbers are
// written in shortest round-trip form, so equal results give
// byte-identical files.
func Write(dir string, r *Result) error {
	files := []struct {
		name string
		head []string
		rows [][]string
	}{
		{AggregateFile, AggregateHeader, nil},
		{ImprovementFile, ImprovementHeader, nil},
		{ProfileFile, ProfileHeader, nil},
	}
	for _, m := range r.Metrics {
		files[0].rows = append(files[0].rows, append([]string{m.Agent, m.Metric}, m.cells()...))
	}
	for _, m := range r.Improvement {
		files[1].rows = append(files[1].rows, append([]string{m.X, m.Y}, m.cells()...))
	}
	for _, m := range r.Profile {
		files[2].rows = append(files[2].rows, append([]string{m.Agent, num(m.Tau)}, m.cells()...))
	}
	var out []fsutil.File
	for _, f := range files {
		out = append(out, fsutil.File{Name: f.name, Write: func(w io.Writer) error {
			cw := csv.NewWriter(w)
			if err := cw.Write(f.head); err != nil {
				return err
			}
			if err := cw.WriteAll(f.rows); err != nil {
				return err
			}
			return cw.Error()
		}})
	}
	// Each file synced, the directory once.
	return fsutil.WriteFilesAtomic(dir, out)
}

func (e Estimate) cells() []string { return []string{num(e.Value), num(e.Lo), num(e.Hi)} }

// num formats a float in shortest round-trip form, empty for NaN.
func num(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
