package experiment

import (
	"fmt"
	"path/filepath"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
)

// A run (or sweep) writes its metadata.json when its trials start, not only
// when they end, so that the shard a directory holds is recorded even when
// the run is interrupted: --resume checks it (checkResumeShard).

// checkResumeShard refuses to resume the directory dir as shard (Count 0:
// the whole run) when its metadata.json records another shard: resuming a
// shard's directory without --shard ran the whole experiment into it, and
// the later merge failed. A directory without metadata.json (a run of an
// older smrl) is left to the journal's checks.
func checkResumeShard(dir string, shard runner.Shard) error {
	path := filepath.Join(dir, results.MetadataFile)
	meta, err := results.ReadMetadata(dir)
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	if meta == nil {
		return nil
	}
	if meta.Shard == shard.String() {
		return nil
	}
	was, now := "shard "+meta.Shard, "shard "+shard.String()
	hint := "resume it with --shard " + meta.Shard
	if meta.Shard == "" {
		was, hint = "the whole run (no --shard)", "resume it without --shard"
	}
	if shard.Count == 0 {
		now = "the whole run (no --shard, and no JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID)"
	}
	return errs.Invalid(fmt.Errorf("--resume: %s records that %s holds %s, but this run is %s; %s", path, dir, was, now, hint))
}
