package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/fsutil"
	"github.com/smrl-dev/smrl/internal/record"
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
	Reward    *float64  `json:"reward"` // never null: a reward is always finite
	Steps     int       `json:"steps"`
	PlusCount int       `json:"plus_count"`
	W         []float64 `json:"w"`
	WError    *float64  `json:"w_error"`
	SE        []float64 `json:"se,omitempty"` // stats.save_se
	Beta      *float64  `json:"beta"`
	Accept    *float64  `json:"ball_accept,omitempty"`
	Lambda    float64   `json:"lambda,omitempty"` // lambda: cv
	// The refit diagnostics and the action counts, absent in journals of
	// earlier versions (read as NaN and nil).
	Cond    *float64 `json:"cond,omitempty"`
	MinEigN *float64 `json:"min_eig_n,omitempty"`
	WStep   *float64 `json:"w_step,omitempty"`
	Actions []int    `json:"actions,omitempty"`
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
// A last line without its newline (a write cut short by a crash) is cut
// off first, and the cut is synced, so that the next record starts on a
// line of its own instead of continuing the partial one.
func AppendJournal(dir string) (*Journal, error) {
	j, err := openJournal(dir, os.O_CREATE|os.O_RDWR|os.O_APPEND)
	if err != nil {
		return nil, err
	}
	if err := j.dropPartialLine(); err != nil {
		j.f.Close()
		return nil, err
	}
	return j, nil
}

// dropPartialLine truncates the journal after its last newline and syncs
// the cut.
func (j *Journal) dropPartialLine() error {
	cut, err := fsutil.DropPartialLine(j.f, j.path)
	if err != nil || !cut {
		return err
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", j.path, err)
	}
	return nil
}

func openJournal(dir string, flag int) (*Journal, error) {
	p := filepath.Join(dir, JournalFile)
	// Never through a symbolic link planted there: it could name any file.
	f, err := fsutil.OpenNoFollow(p, flag, 0o644)
	if errors.Is(err, fsutil.ErrLink) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("opening journal: %w", err)
	}
	return &Journal{f: f, path: p}, nil
}

// Append writes one trial as a single line and syncs it to disk.
func (j *Journal) Append(t record.Trial, eps []record.Episode) error {
	l := journalLine{Agent: t.Agent, Seed: t.Seed, Episodes: make([]journalEpisode, len(eps))}
	for i, e := range eps {
		l.Episodes[i] = journalEpisode{Episode: e.Episode, Reward: &e.Reward, Steps: e.Steps, PlusCount: e.PlusCount, W: e.W, SE: e.SE, WError: nullable(e.WError), Beta: nullable(e.Beta), Accept: nullable(e.Accept), Lambda: e.Lambda,
			Actions: e.Actions}
		if d := e.Diag; d != nil {
			l.Episodes[i].Cond, l.Episodes[i].MinEigN, l.Episodes[i].WStep = nullable(d.Cond), nullable(d.MinEigN), &d.WStep
		}
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

// Expect is what a config implies for every trial of its journal. Check
// is the one place that checks a record against it.
type Expect struct {
	Agents   []string // the config's agents
	Seeds    int      // seeds per agent
	Episodes int      // K, episodes per trial
	Horizon  int      // H, the most steps of an episode
	// WLen is the number of entries of the W each agent records (its
	// model's d_psi·d_phi; 0 for an agent without a model); an agent
	// missing from WLen is not checked.
	WLen map[string]int
	// SaveSE is stats.save_se: only then may an episode record standard
	// errors of its W.
	SaveSE bool
	// CVGrid is cv.grid with lambda: cv, else nil: an episode's recorded
	// λ must be one of it.
	CVGrid []float64
	// Actions is the number of discrete actions (env.actions; 0 for a
	// box): an episode's action counts, when recorded, are one per action.
	Actions int
}

// ExpectFor returns the expectation of config c, whose agents record W of
// the lengths wlen.
func ExpectFor(c *config.Config, wlen map[string]int) *Expect {
	x := &Expect{Agents: c.Agents, Seeds: c.Seeds, Episodes: c.Episodes, Horizon: c.Env.Horizon, WLen: wlen, SaveSE: c.Stats.SaveSE}
	if c.LambdaCV {
		x.CVGrid = c.CV.Grid
	}
	return x
}

// Check reports the first way trial t's record eps disagrees with the
// config: an agent or seed the config does not have, a number of
// episodes other than K, episode numbers other than 1..K in order, steps
// outside [1, H], a plus_count outside [0, steps], a W of the wrong
// length, standard errors without stats.save_se, of another length
// than W or negative, a λ (lambda) that is not one of cv.grid with
// lambda: cv, a cond below 1, a negative w_step, or action counts that
// are not one per action or do not sum to steps. A field added to
// record.Episode gets its check here.
func (x *Expect) Check(t record.Trial, eps []record.Episode) error {
	if !slices.Contains(x.Agents, t.Agent) {
		return fmt.Errorf("agent %q is not one of the config's agents %v", t.Agent, x.Agents)
	}
	if t.Seed < 0 || t.Seed >= x.Seeds {
		return fmt.Errorf("agent %s: seed %d is outside the config's seeds 0..%d", t.Agent, t.Seed, x.Seeds-1)
	}
	if len(eps) != x.Episodes {
		return fmt.Errorf("agent %s seed %d has %d episodes, the config has %d", t.Agent, t.Seed, len(eps), x.Episodes)
	}
	wlen, checkW := x.WLen[t.Agent]
	for i, e := range eps {
		where := fmt.Sprintf("agent %s seed %d episode %d", t.Agent, t.Seed, e.Episode)
		switch {
		case e.Episode != i+1:
			return fmt.Errorf("agent %s seed %d: episode %d is numbered %d (want 1..%d in order, no repeats)", t.Agent, t.Seed, i+1, e.Episode, x.Episodes)
		case e.Steps < 1 || e.Steps > x.Horizon:
			return fmt.Errorf("%s: steps %d is outside [1, %d] (env.horizon)", where, e.Steps, x.Horizon)
		case e.PlusCount < 0 || e.PlusCount > e.Steps:
			return fmt.Errorf("%s: plus_count %d is outside [0, %d] (its steps)", where, e.PlusCount, e.Steps)
		case checkW && len(e.W) != wlen:
			return fmt.Errorf("%s: W has %d entries, the agent's model has d_psi·d_phi = %d", where, len(e.W), wlen)
		case len(e.SE) > 0 && !x.SaveSE:
			return fmt.Errorf("%s: standard errors (se) are recorded, but stats.save_se is off", where)
		case len(e.SE) > 0 && len(e.SE) != len(e.W):
			return fmt.Errorf("%s: se has %d entries, W %d", where, len(e.SE), len(e.W))
		case slices.ContainsFunc(e.SE, func(v float64) bool { return v < 0 }):
			return fmt.Errorf("%s: se has a negative standard error", where)
		case e.Lambda != 0 && x.CVGrid == nil:
			return fmt.Errorf("%s: a cross-validated λ (lambda) is recorded, but lambda is not cv", where)
		case e.Lambda != 0 && !slices.Contains(x.CVGrid, e.Lambda):
			return fmt.Errorf("%s: lambda %v is not one of cv.grid %v", where, e.Lambda, x.CVGrid)
		case e.Diag != nil && e.Diag.Cond < 1:
			return fmt.Errorf("%s: cond %v is below 1; a condition number is at least 1", where, e.Diag.Cond)
		case e.Diag != nil && !(e.Diag.WStep >= 0):
			return fmt.Errorf("%s: w_step %v is negative", where, e.Diag.WStep)
		}
		if err := x.checkActions(e.Actions, e.Steps, e.PlusCount); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}

// checkActions checks an episode's action counts: none (a journal of an
// earlier version), or one non-negative count per action summing to steps,
// the first equal to plus_count (the steps that played the first action).
func (x *Expect) checkActions(counts []int, steps, plus int) error {
	if counts == nil {
		return nil
	}
	if len(counts) != x.Actions {
		return fmt.Errorf("actions has %d counts, env.actions %d actions", len(counts), x.Actions)
	}
	sum := 0
	for _, n := range counts {
		if n < 0 {
			return fmt.Errorf("actions has a negative count %d", n)
		}
		sum += n
	}
	if sum != steps {
		return fmt.Errorf("the action counts sum to %d, its steps are %d", sum, steps)
	}
	if len(counts) > 0 && counts[0] != plus {
		return fmt.Errorf("actions counts %d plays of the first action, plus_count %d", counts[0], plus)
	}
	return nil
}

// ReadJournal returns the completed trials recorded in dir's journal,
// each checked against want (nil: unchecked). A last line without its
// newline (a write cut short by a crash) is ignored; a malformed line or
// a record that disagrees with want is an error naming the file and line.
// A trial recorded twice, or an episode without its reward, is an error
// too: smrl never writes either.
func ReadJournal(dir string, want *Expect) (map[record.Trial][]record.Episode, error) {
	p := filepath.Join(dir, JournalFile)
	if err := fsutil.NoLink(p); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errs.Invalid(fmt.Errorf("%s: no journal: not a results directory of this smrl version, or the run never started", dir))
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, errs.Invalid(fmt.Errorf("reading %s: permission denied: make it readable (chmod u+r)", p))
		}
		return nil, fmt.Errorf("reading journal: %w", err)
	}
	out := map[record.Trial][]record.Episode{}
	first := map[record.Trial]int{} // the line of each trial
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
		eps := make([]record.Episode, len(l.Episodes))
		for i, e := range l.Episodes {
			if e.Reward == nil {
				return nil, errs.Invalid(fmt.Errorf("%s line %d: agent %s seed %d episode %d has no reward (null or missing); the journal was edited", p, line, l.Agent, l.Seed, e.Episode))
			}
			eps[i] = record.Episode{Episode: e.Episode, Reward: *e.Reward, Steps: e.Steps, PlusCount: e.PlusCount, W: e.W, SE: e.SE, WError: fromNullable(e.WError), Beta: fromNullable(e.Beta), Accept: fromNullable(e.Accept), Lambda: e.Lambda,
				Actions: e.Actions}
			if e.WStep != nil { // a refit's record: w_step is never null
				eps[i].Diag = &record.Diag{Cond: fromNullable(e.Cond), MinEigN: fromNullable(e.MinEigN), WStep: *e.WStep}
			}
		}
		t := record.Trial{Agent: l.Agent, Seed: l.Seed}
		if want != nil {
			if err := want.Check(t, eps); err != nil {
				return nil, errs.Invalid(fmt.Errorf("%s line %d: %w; the journal does not belong to this config or was edited", p, line, err))
			}
		}
		if prev, dup := first[t]; dup {
			// smrl journals a trial once (a resume runs only the trials
			// the journal lacks).
			return nil, errs.Invalid(fmt.Errorf("%s line %d: trial agent %s seed %d is already recorded at line %d; smrl writes each trial once: the journal was edited or concatenated", p, line, t.Agent, t.Seed, prev))
		}
		first[t] = line
		out[t] = eps
	}
	return out, nil
}
