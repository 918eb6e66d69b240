package runner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/smrl-dev/smrl/internal/errs"
)

// Shard selects a deterministic subset of a run's trials: trial k of the
// canonical order (Trials) belongs to shard k mod Count. Count 0 means no
// sharding.
type Shard struct{ Index, Count int }

// String is "i/n", or "" without sharding.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Contains reports whether trial index k is in shard s.
func (s Shard) Contains(k int) bool { return s.Count == 0 || k%s.Count == s.Index }

// Held is the number of trials k in [lo, hi) that shard s holds
// (Contains), counted without listing them.
func (s Shard) Held(lo, hi int) int {
	if s.Count == 0 {
		return hi - lo
	}
	// k ≡ Index (mod Count): below n there are ceil((n − Index)/Count).
	below := func(n int) int { return max(0, (n-s.Index+s.Count-1)/s.Count) }
	return below(hi) - below(lo)
}

// Select returns the indices of the trials in shard s.
func (s Shard) Select(n int) []int {
	var idx []int
	for k := 0; k < n; k++ {
		if s.Contains(k) {
			idx = append(idx, k)
		}
	}
	return idx
}

func checkShard(i, n int, what string) (Shard, error) {
	if n < 1 || i < 0 || i >= n {
		return Shard{}, errs.Invalid(fmt.Errorf("%s: shard %d of %d: want 0 <= index < count", what, i, n))
	}
	return Shard{Index: i, Count: n}, nil
}

// ParseShard parses "i/n" (0 <= i < n).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, errs.Invalid(fmt.Errorf("--shard %q: want INDEX/COUNT, e.g. 0/4", s))
	}
	return checkShard(i, n, "--shard")
}

// ShardFromEnv derives the shard of a batch-queue array job when no --shard
// is given:
//   - Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX, with the count from
//     count (--shard-count) or SMRL_SHARD_COUNT;
//   - Slurm job arrays: (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN) /
//     SLURM_ARRAY_TASK_STEP (MIN 0 and STEP 1 when unset) of
//     SLURM_ARRAY_TASK_COUNT.
//
// ok is false when none of these is set.
func ShardFromEnv(getenv func(string) string, count int) (s Shard, ok bool, err error) {
	num := func(name string) (int, bool, error) {
		v := getenv(name)
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, true, errs.Invalid(fmt.Errorf("%s=%q is not an integer", name, v))
		}
		return n, true, nil
	}
	if idx, set, err := num("JOB_COMPLETION_INDEX"); err != nil || set {
		if err != nil {
			return Shard{}, false, err
		}
		if count == 0 {
			c, cset, err := num("SMRL_SHARD_COUNT")
			if err != nil {
				return Shard{}, false, err
			}
			if !cset {
				return Shard{}, false, errs.Invalid(fmt.Errorf("JOB_COMPLETION_INDEX is set but the shard count is not: pass --shard-count N or set SMRL_SHARD_COUNT (the Job's completions)"))
			}
			count = c
		}
		s, err := checkShard(idx, count, "JOB_COMPLETION_INDEX")
		return s, err == nil, err
	}
	if id, set, err := num("SLURM_ARRAY_TASK_ID"); err != nil || set {
		if err != nil {
			return Shard{}, false, err
		}
		n, nset, err := num("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return Shard{}, false, err
		}
		if !nset {
			return Shard{}, false, errs.Invalid(fmt.Errorf("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not"))
		}
		lo, _, err := num("SLURM_ARRAY_TASK_MIN")
		if err != nil {
			return Shard{}, false, err
		}
		// A stepped array (--array=1-5:2) numbers its tasks 1, 3, 5.
		step, stepSet, err := num("SLURM_ARRAY_TASK_STEP")
		if err != nil {
			return Shard{}, false, err
		}
		if !stepSet {
			step = 1
		}
		if step < 1 || (id-lo)%step != 0 {
			return Shard{}, false, errs.Invalid(fmt.Errorf("SLURM_ARRAY_TASK_ID %d is not SLURM_ARRAY_TASK_MIN %d plus a multiple of SLURM_ARRAY_TASK_STEP %d: smrl shards an array of evenly stepped tasks (--array=MIN-MAX[:STEP]); for another array give --shard i/n", id, lo, step))
		}
		s, err := checkShard((id-lo)/step, n, "(SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP")
		return s, err == nil, err
	}
	return Shard{}, false, nil
}
