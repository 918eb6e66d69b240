package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/runner"
)

// JournalFile is the name of a results directory's journal: one JSON line
// per completed trial, appended and synced as trials finish, so that a crash
// or kill loses at most the trials in flight. smrl run --resume and smrl
// merge read it.
const JournalFile = "journal.jsonl"

// journalLine is one completed trial. Floats round-trip exactly through
// encoding/json; NaN is written as null.
type journalLine struct {
	Agent    string           `json:"agent"`
	Seed     int              `json:"seed"`
	Episodes []journalEpisode `json:"episodes"`
}

type journalEpisode struct {
	Episode   int       `json:"episode"`
	Reward    float64   `json:"reward"`
	PlusCount int       `json:"plus_count"`
	W         []float64 `json:"w"`
	WError    *float64  `json:"w_error"`
	Beta      *float64  `json:"beta"`
	Accept    *float64  `json:"ball_accept,omitempty"`
}

func nullable(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

func fromNullable(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// Journal appends completed trials to a results directory's journal.
type Journal struct {
	f    *os.File
	path string
}

// CreateJournal starts an empty journal in dir, replacing any old one.
func CreateJournal(dir string) (*Journal, error) {
	return openJournal(dir, os.O_CREATE|os.O_WRONLY|os.O_TRUNC)
}

// AppendJournal opens dir's journal for appending (smrl run --resume).
func AppendJournal(dir string) (*Journal, error) {
	return openJournal(dir, os.O_CREATE|os.O_WRONLY|os.O_APPEND)
}

func openJournal(dir string, flag int) (*Journal, error) {
	p := filepath.Join(dir, JournalFile)
	f, err := os.OpenFile(p, flag, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening journal: %w", err)
	}
	return &Journal{f: f, path: p}, nil
}

// Append writes one trial as a single line and syncs it to disk.
func (j *Journal) Append(t runner.Trial, eps []runner.Episode) error {
	l := journalLine{Agent: t.Agent, Seed: t.Seed, Episodes: make([]journalEpisode, len(eps))}
	for i, e := range eps {
		l.Episodes[i] = journalEpisode{Episode: e.Episode, Reward: e.Reward, PlusCount: e.PlusCount, W: e.W, WError: nullable(e.WError), Beta: nullable(e.Beta), Accept: nullable(e.Accept)}
	}
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", j.path, err)
	}
	return nil
}

// Close closes the journal file.
func (j *Journal) Close() error { return j.f.Close() }

// ReadJournal returns the completed trials recorded in dir's journal. A last
// line without its newline (a write cut short by a crash) is ignored; any
// other malformed line is an error naming the file and line. A trial
// recorded twice keeps its first record (trials are deterministic, so both
// are the same).
func ReadJournal(dir string) (map[runner.Trial][]runner.Episode, error) {
	p := filepath.Join(dir, JournalFile)
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errs.Invalid(fmt.Errorf("%s: no journal: not a results directory of this smrl version, or the run never started", dir))
		}
		return nil, fmt.Errorf("reading journal: %w", err)
	}
	out := map[runner.Trial][]runner.Episode{}
	r := bufio.NewReader(bytes.NewReader(data))
	for line := 1; ; line++ {
		b, err := r.ReadBytes('\n')
		if err == io.EOF {
			break // an unterminated last line is a cut-short write: ignore it
		}
		var l journalLine
		if jerr := json.Unmarshal(b, &l); jerr != nil {
			return nil, errs.Invalid(fmt.Errorf("%s line %d: %v", p, line, jerr))
		}
		eps := make([]runner.Episode, len(l.Episodes))
		for i, e := range l.Episodes {
			eps[i] = runner.Episode{Episode: e.Episode, Reward: e.Reward, PlusCount: e.PlusCount, W: e.W, WError: fromNullable(e.WError), Beta: fromNullable(e.Beta), Accept: fromNullable(e.Accept)}
		}
		t := runner.Trial{Agent: l.Agent, Seed: l.Seed}
		if _, dup := out[t]; dup {
			continue
		}
		out[t] = eps
	}
	return out, nil
}
