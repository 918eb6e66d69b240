package experiment

import (
	"compress/gzip"
	"io"
	"path/filepath"
	"strings"

	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/fsutil"
	"github.com/smrl-dev/smrl/internal/record"
)

// Names of the transitions log a run writes with Options.SaveTransitions.
const (
	TransitionsFile   = "transitions.csv"
	TransitionsGzFile = "transitions.csv.gz"
)

// transitionsName is the name of the transitions log, gzip-compressed
// with gz.
func transitionsName(gz bool) string {
	if gz {
		return TransitionsGzFile
	}
	return TransitionsFile
}

// trialLog collects one trial's transitions as lines of a transitions log
// (dataset.LogHeader).
type trialLog struct {
	agent string
	seed  int
	buf   []byte
}

func (l *trialLog) Transition(episode, step int, s, a, next []float64, reward float64, terminal bool) {
	l.buf = dataset.AppendLog(l.buf, l.agent, l.seed, episode, step, s, a, next, reward, terminal)
}

// writeTransitions writes the logs of trials, in that order (canonical:
// agents in config order, then seeds), under a header for states of ds
// and actions of da dimensions to dir/transitions.csv, or gzip-compressed
// to dir/transitions.csv.gz. The bytes depend only on the transitions,
// never on the number of workers (the gzip header has no time or name).
func writeTransitions(dir string, trials []record.Trial, logs map[record.Trial]*trialLog, ds, da int, gz bool) error {
	return fsutil.WriteAtomic(filepath.Join(dir, transitionsName(gz)), func(w io.Writer) error {
		if gz {
			zw := gzip.NewWriter(w)
			if err := writeLogs(zw, trials, logs, ds, da); err != nil {
				return err
			}
			return zw.Close()
		}
		return writeLogs(w, trials, logs, ds, da)
	})
}

func writeLogs(w io.Writer, trials []record.Trial, logs map[record.Trial]*trialLog, ds, da int) error {
	if _, err := io.WriteString(w, strings.Join(dataset.LogHeader(ds, da), ",")+"\n"); err != nil {
		return err
	}
	for _, t := range trials {
		if l := logs[t]; l != nil {
			if _, err := w.Write(l.buf); err != nil {
				return err
			}
		}
	}
	return nil
}
