package k8s

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

const jobFile = "../kubernetes-indexed-job.yaml"

// loadJob decodes the example strictly: a misspelt or misplaced field is an
// error, as `kubectl apply --validate=strict` would make it.
func loadJob(t *testing.T) *batchv1.Job {
	t.Helper()
	data, err := os.ReadFile(jobFile)
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(data, &job); err != nil {
		t.Fatalf("%s: %v", jobFile, err)
	}
	return &job
}

// TestStrictDecodingRejectsUnknownFields shows that the decoder used above
// does catch a field batch/v1 does not have, so the next test can fail.
func TestStrictDecodingRejectsUnknownFields(t *testing.T) {
	data, err := os.ReadFile(jobFile)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), "  completionMode: Indexed", "  completionMode: Indexed\n  completionsMode: Indexed", 1)
	if bad == string(data) {
		t.Fatal("could not find completionMode in the example")
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(bad), &job); err == nil || !strings.Contains(err.Error(), "completionsMode") {
		t.Fatalf("an unknown field decoded without an error naming it: %v", err)
	}
}

// container returns the Job's only container.
func container(t *testing.T, job *batchv1.Job) corev1.Container {
	t.Helper()
	cs := job.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("want one container, got %d", len(cs))
	}
	return cs[0]
}

// shardCount is the container's SMRL_SHARD_COUNT, which smrl reads with
// JOB_COMPLETION_INDEX to pick its shard.
func shardCount(t *testing.T, c corev1.Container) int {
	t.Helper()
	for _, e := range c.Env {
		if e.Name == "SMRL_SHARD_COUNT" {
			n, err := strconv.Atoi(e.Value)
			if err != nil || n < 1 {
				t.Fatalf("SMRL_SHARD_COUNT=%q: want a positive integer", e.Value)
			}
			return n
		}
	}
	t.Fatal("the container does not set SMRL_SHARD_COUNT")
	return 0
}

// show prints an optional field of the API types.
func show[T any](p *T) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

func TestIndexedJobForSmrl(t *testing.T) {
	job := loadJob(t)
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Errorf("apiVersion/kind = %s/%s, want batch/v1/Job", job.APIVersion, job.Kind)
	}
	if job.Name == "" {
		t.Error("metadata.name is empty")
	}
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode = %s, want Indexed: only Indexed Jobs set JOB_COMPLETION_INDEX", show(spec.CompletionMode))
	}
	c := container(t, job)
	n := shardCount(t, c)
	// Each index is one shard: fewer completions leave shards unrun (merge
	// refuses), fewer parallel pods only serialise them, more are useless.
	if spec.Completions == nil || int(*spec.Completions) != n {
		t.Errorf("completions = %s, want SMRL_SHARD_COUNT = %d", show(spec.Completions), n)
	}
	if spec.Parallelism == nil || int(*spec.Parallelism) != n {
		t.Errorf("parallelism = %s, want SMRL_SHARD_COUNT = %d", show(spec.Parallelism), n)
	}
	if spec.BackoffLimit == nil || *spec.BackoffLimit < 1 {
		t.Errorf("backoffLimit = %s: an evicted pod must be retried to resume its shard", show(spec.BackoffLimit))
	}
	if p := spec.Template.Spec.RestartPolicy; p != corev1.RestartPolicyOnFailure && p != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy = %q: a Job's pods need OnFailure or Never", p)
	}

	// The results must land on the persistent volume the merge reads.
	if len(c.VolumeMounts) != 1 {
		t.Fatalf("want one volume mount, got %d", len(c.VolumeMounts))
	}
	m := c.VolumeMounts[0]
	var claim string
	for _, v := range spec.Template.Spec.Volumes {
		if v.Name == m.Name && v.PersistentVolumeClaim != nil {
			claim = v.PersistentVolumeClaim.ClaimName
		}
	}
	if claim == "" {
		t.Errorf("volume mount %q is not a persistentVolumeClaim volume", m.Name)
	}
	if !reflect.DeepEqual(c.Command, []string{"/bin/sh", "-c"}) || len(c.Args) != 1 {
		t.Fatalf("command/args = %q %q, want /bin/sh -c SCRIPT", c.Command, c.Args)
	}
	if !strings.Contains(c.Args[0], m.MountPath+"/results/") {
		t.Errorf("the script does not write under the volume (%s/results/):\n%s", m.MountPath, c.Args[0])
	}
	if strings.Contains(c.Args[0], "go install") {
		t.Error("the script runs go install: smrl's module path is not published")
	}
}

// TestPodScriptRunsItsShard runs the container's script with /bin/sh, the
// volume replaced by a temporary directory and smrl by a stub that records
// its arguments, for every completion index: once on an empty volume and once
// after a journal was written, as when Kubernetes retries an evicted pod.
func TestPodScriptRunsItsShard(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	job := loadJob(t)
	c := container(t, job)
	n := shardCount(t, c)
	mount := c.VolumeMounts[0].MountPath

	vol := t.TempDir()
	bin := filepath.Join(vol, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	argsFile := filepath.Join(vol, "smrl-args")
	stub := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + argsFile + "\n"
	if err := os.WriteFile(filepath.Join(bin, "smrl"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	script := strings.ReplaceAll(c.Args[0], mount, vol)

	run := func(index int) []string {
		t.Helper()
		os.Remove(argsFile)
		cmd := exec.Command(sh, "-c", script)
		cmd.Dir = vol
		cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "JOB_COMPLETION_INDEX=" + strconv.Itoa(index)}
		for _, e := range c.Env {
			cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("index %d: the script failed: %v\n%s", index, err, out)
		}
		data, err := os.ReadFile(argsFile)
		if err != nil {
			t.Fatalf("index %d: the script did not run smrl: %v", index, err)
		}
		return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	flag := func(args []string, name string) (string, bool) {
		for i, a := range args {
			if a == name && i+1 < len(args) {
				return args[i+1], true
			}
		}
		return "", false
	}
	has := func(args []string, name string) bool {
		for _, a := range args {
			if a == name {
				return true
			}
		}
		return false
	}

	for i := 0; i < n; i++ {
		args := run(i)
		if len(args) == 0 || (args[0] != "compare" && args[0] != "run") {
			t.Fatalf("index %d: smrl %q, want smrl compare or run", i, args)
		}
		if _, ok := flag(args, "--shard"); ok {
			t.Errorf("index %d: --shard given; the shard must come from JOB_COMPLETION_INDEX", i)
		}
		out, ok := flag(args, "--out")
		want := filepath.Join(vol, "results", "synthetic", "shard-"+strconv.Itoa(i)+"-of-"+strconv.Itoa(n))
		if !ok || out != want {
			t.Fatalf("index %d: --out %q, want %q (smrl merge reads shard-*-of-%d)", i, out, want, n)
		}
		if has(args, "--resume") {
			t.Errorf("index %d: --resume on a fresh volume: smrl refuses it (nothing to resume), so the pod would fail", i)
		}

		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, "journal.jsonl"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if args := run(i); !has(args, "--resume") {
			t.Errorf("index %d: a retried pod with a journal runs %q without --resume", i, args)
		}
	}
}
