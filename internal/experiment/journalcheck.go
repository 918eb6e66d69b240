package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	agentpkg "github.com/smrl-dev/smrl/internal/agent"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
)

// recordedShard returns the shard dir's metadata.json records (Count 0:
// the whole run, also when there is no metadata.json).
func recordedShard(dir string) runner.Shard {
	if meta, err := results.ReadMetadata(dir); err == nil && meta != nil && meta.Shard != "" {
		if sh, err := runner.ParseShard(meta.Shard); err == nil {
			return sh
		}
	}
	return runner.Shard{}
}

// checkAgainstJournal checks that dir's episodes.csv and summary.csv are,
// byte for byte, the files its journal's trials make (as Run and Merge
// write them from it): an unknown agent, a dropped or renamed column, an
// empty regret cell where the oracle ran, any edited cell is refused,
// naming the file and the first line that differs. A directory without a
// journal (written by an older smrl) is left to the CSV checks of package
// plotting.
func checkAgainstJournal(dir string, c *config.Config, mdp *env.MDP) error {
	jpath := filepath.Join(dir, results.JournalFile)
	if _, err := os.Lstat(jpath); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	rows, err := journalRows(dir, c, mdp)
	if err != nil {
		return err
	}
	version, err := results.ReadFormatVersion(dir)
	if err != nil {
		return err
	}
	dphi := mdp.Model.Features.Dim()
	l := results.NewLayout(version, results.WDims(rows, dphi), dphi, c.Stats.SaveW)
	var ep, sum, w bytes.Buffer
	if err := results.WriteEpisodesLayout(&ep, rows, l); err != nil {
		return err
	}
	if err := results.WriteSummary(&sum, results.Summarise(rows, c.Env.Horizon)); err != nil {
		return err
	}
	type file struct {
		name string
		want []byte
	}
	files := []file{{results.EpisodesFile, ep.Bytes()}, {results.SummaryFile, sum.Bytes()}}
	if l.SeparateW {
		if err := results.WriteW(&w, rows, l); err != nil {
			return err
		}
		files = append(files, file{results.WFile, w.Bytes()})
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		got, err := os.ReadFile(path)
		if err != nil {
			return errs.Invalid(fmt.Errorf("reading %s: %w", path, err))
		}
		if !bytes.Equal(got, f.want) {
			return errs.Invalid(fmt.Errorf("%s is not the file smrl writes from %s (%s): it was edited, cut or comes from another run; smrl draws only the results it wrote",
				path, results.JournalFile, firstDiffLine(got, f.want)))
		}
	}
	return nil
}

// journalRows returns the rows of the trials of dir's journal (those of
// its recorded shard), which must all be there.
func journalRows(dir string, c *config.Config, mdp *env.MDP) ([]results.Row, error) {
	done, err := results.ReadJournal(dir, expectFor(c, mdp))
	if err != nil {
		return nil, err
	}
	all := record.Trials(c)
	full := &record.Result{}
	for _, k := range recordedShard(dir).Select(len(all)) {
		eps, ok := done[all[k]]
		if !ok {
			return nil, errs.Invalid(fmt.Errorf("%s lacks trial agent %s seed %d: the run did not finish (resume it with smrl run --resume)",
				filepath.Join(dir, results.JournalFile), all[k].Agent, all[k].Seed))
		}
		full.Trials = append(full.Trials, all[k])
		full.Episodes = append(full.Episodes, eps)
	}
	return results.Rows(full), nil
}

// runWarnings returns the warnings of the results directory dir, whose
// config.yaml and MDP are c and mdp (runConfig), from its journal; none
// for a directory without one (written by an earlier smrl, whose results
// have no diagnostics) or that cannot be read (checked elsewhere before
// anything is drawn).
func runWarnings(dir string, c *config.Config, mdp *env.MDP) []results.Warning {
	if _, err := os.Lstat(filepath.Join(dir, results.JournalFile)); err != nil {
		return nil
	}
	rows, err := journalRows(dir, c, mdp)
	if err != nil {
		return nil
	}
	return results.Warnings(rows, warnInput(c, mdp))
}

// warnInput is what results.Warnings needs of c's run on mdp: its
// discrete actions and each agent's λ (1/b_star² for a -ucb agent with
// confidence.lambda: theorem, else lambda; a cross-validated λ comes with
// each row).
func warnInput(c *config.Config, mdp *env.MDP) results.WarnInput {
	in := results.WarnInput{Lambda: func(agent string) float64 { return agentpkg.AgentLambda(c, agent) }}
	if mdp.Box == nil {
		in.Actions = mdp.Actions
	}
	in.PlainSM = agentpkg.SMFloor(c) == 0
	return in
}
