package runner

import (
	"errors"
	"reflect"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

func TestShardSelectPartitions(t *testing.T) {
	seen := map[int]int{}
	for i := 0; i < 4; i++ {
		for _, k := range (Shard{Index: i, Count: 4}).Select(10) {
			seen[k]++
		}
	}
	for k := 0; k < 10; k++ {
		if seen[k] != 1 {
			t.Errorf("trial %d in %d shards", k, seen[k])
		}
	}
	if got := (Shard{}).Select(3); !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Errorf("no shard selects %v", got)
	}
}

func TestParseShard(t *testing.T) {
	if s, err := ParseShard("2/5"); err != nil || s != (Shard{2, 5}) {
		t.Errorf("2/5: %v %v", s, err)
	}
	for _, bad := range []string{"5/5", "-1/3", "1", "a/b", "1/0"} {
		if _, err := ParseShard(bad); !errors.Is(err, errs.ErrInvalidInput) {
			t.Errorf("%q accepted (%v)", bad, err)
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	cases := []struct {
		env   map[string]string
		count int
		want  Shard
		ok    bool
		fails bool
	}{
		{env: map[string]string{}, ok: false},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "2"}, count: 4, want: Shard{2, 4}, ok: true},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "1", "SMRL_SHARD_COUNT": "3"}, want: Shard{1, 3}, ok: true},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "1"}, fails: true},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "4", "SMRL_SHARD_COUNT": "4"}, fails: true},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1"}, want: Shard{2, 3}, ok: true},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "2"}, want: Shard{0, 2}, ok: true},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"}, fails: true},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, fails: true},
	}
	for _, tc := range cases {
		s, ok, err := ShardFromEnv(func(k string) string { return tc.env[k] }, tc.count)
		if tc.fails {
			if !errors.Is(err, errs.ErrInvalidInput) {
				t.Errorf("%v: want an input error, got %v %v %v", tc.env, s, ok, err)
			}
			continue
		}
		if err != nil || ok != tc.ok || s != tc.want {
			t.Errorf("%v: got %v %v %v, want %v %v", tc.env, s, ok, err, tc.want, tc.ok)
		}
	}
}

// Shard.Held counts what Shard.Select lists, for every range and shard.
func TestShardHeldIsSelect(t *testing.T) {
	for _, s := range []Shard{{}, {Index: 0, Count: 1}, {Index: 0, Count: 3}, {Index: 2, Count: 3}, {Index: 4, Count: 7}} {
		all := s.Select(40)
		for lo := 0; lo <= 40; lo++ {
			for hi := lo; hi <= 40; hi++ {
				want := 0
				for _, k := range all {
					if k >= lo && k < hi {
						want++
					}
				}
				if got := s.Held(lo, hi); got != want {
					t.Fatalf("shard %v, [%d, %d): %d, want %d", s, lo, hi, got, want)
				}
			}
		}
	}
}
