// Package metrics is the live record of a run: metrics.jsonl, one JSON
// line per finished episode of every trial, appended as the episode ends,
// and what is read from it while the run goes on (learning curves and an
// ETA from measured episode times).
//
// A line's content is a pure function of the config and seed except its
// two times (episode_seconds, wall_seconds); the order of the lines is the
// order in which episodes finished, which depends on the workers and the
// machine. The results files (episodes.csv, …) are the deterministic
// record; metrics.jsonl is for watching.
package metrics

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
	"sync"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/fsutil"
)

// File is the name of the live metrics of a results directory.
const File = "metrics.jsonl"

// Line is one finished episode.
type Line struct {
	Agent   string `json:"agent"`
	Seed    int    `json:"seed"`
	Episode int    `json:"episode"`
	// Steps counts the environment steps of the trial so far, this
	// episode's included.
	Steps  int     `json:"steps"`
	Return float64 `json:"return"`
	// WError is |Ŵ − W0|_F after the episode's refit; absent where no
	// true W is known in the learner's class (the oracle, lds on its own
	// features, an environment without W0).
	WError *float64 `json:"w_error,omitempty"`
	// EpisodeSeconds is the wall time of the episode (planning, stepping
	// and refit); WallSeconds the time since the command started.
	EpisodeSeconds float64 `json:"episode_seconds"`
	WallSeconds    float64 `json:"wall_seconds"`
}

// NewLine is the line of an episode; a NaN wErr is left out.
func NewLine(agent string, seed, episode, steps int, ret, wErr, episodeSec, wallSec float64) Line {
	l := Line{Agent: agent, Seed: seed, Episode: episode, Steps: steps, Return: ret,
		EpisodeSeconds: round6(episodeSec), WallSeconds: round6(wallSec)}
	if !math.IsNaN(wErr) && !math.IsInf(wErr, 0) {
		l.WError = &wErr
	}
	return l
}

// round6 keeps microseconds: finer digits of a wall time are noise.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// Writer appends lines to a metrics file. Its methods may be called from
// several goroutines.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	path string
	err  error
}

// Create starts an empty metrics file in dir, replacing any old one (a
// fresh run, --overwrite).
func Create(dir string) (*Writer, error) {
	return open(dir, os.O_CREATE|os.O_WRONLY|os.O_TRUNC)
}

// Append opens dir's metrics file for appending (--resume): the lines of
// the interrupted run stay, and a last line cut short by a kill is cut
// off so that the next line starts on its own.
func Append(dir string) (*Writer, error) {
	w, err := open(dir, os.O_CREATE|os.O_RDWR|os.O_APPEND)
	if err != nil {
		return nil, err
	}
	if _, err := fsutil.DropPartialLine(w.f, w.path); err != nil {
		w.f.Close()
		return nil, err
	}
	return w, nil
}

func open(dir string, flag int) (*Writer, error) {
	p := filepath.Join(dir, File)
	f, err := fsutil.OpenNoFollow(p, flag, 0o644)
	if errors.Is(err, fsutil.ErrLink) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", p, err)
	}
	return &Writer{f: f, path: p}, nil
}

// Write appends l as one line with one write call, so that a reader sees
// it at once (no buffer holds it back; it is not synced to disk, which
// the journal is: the metrics are a view, the journal the record). The
// first error is kept and returned by this and every later call.
func (w *Writer) Write(l Line) error {
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("writing %s: %w", w.path, err)
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if _, err := w.f.Write(b); err != nil {
		w.err = fmt.Errorf("writing %s: %w", w.path, err)
	}
	return w.err
}

// Err is the first error of a Write, or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Close closes the file.
func (w *Writer) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.f.Close()
}

// Read reads the metrics file at path. A last line without its newline is
// being written (or was cut by a kill) and is skipped; any other line
// that is not a metrics line is an error naming the file and line,
// wrapping errs.ErrInvalidInput.
func Read(path string) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errs.Invalid(fmt.Errorf("reading %s: %w", path, err))
		}
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	return parse(path, f)
}

func parse(path string, r io.Reader) ([]Line, error) {
	br := bufio.NewReader(r)
	var out []Line
	for n := 1; ; n++ {
		b, err := br.ReadBytes('\n')
		if err == io.EOF {
			return out, nil // b, if any, is a line still being written
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		var l Line
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, errs.Invalid(fmt.Errorf("%s line %d: %w", path, n, err))
		}
		if l.Agent == "" || l.Episode < 1 || l.Seed < 0 || l.Steps < 0 {
			return nil, errs.Invalid(fmt.Errorf("%s line %d: want an agent, a seed ≥ 0, an episode ≥ 1 and steps ≥ 0", path, n))
		}
		out = append(out, l)
	}
}

// Concat writes into dir the metrics of the shards in dirs, one after
// another in the order given, each in its own order of completion (smrl
// merge): a shard without the file adds nothing, and the partial last
// line of a killed shard is dropped. The wall_seconds of each shard count
// from its own start. Nothing is written when no shard has metrics.
func Concat(dir string, dirs []string) error {
	var all []byte
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, File))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", filepath.Join(d, File), err)
		}
		all = append(all, b[:bytes.LastIndexByte(b, '\n')+1]...)
	}
	if all == nil {
		return nil
	}
	return fsutil.WriteFileAtomic(filepath.Join(dir, File), all)
}
