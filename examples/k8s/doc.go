// Package k8s checks examples/kubernetes-indexed-job.yaml against the
// Kubernetes API types. It is a module of its own so that smrl itself does not
// depend on k8s.io/api; run its tests with `cd examples/k8s && go test ./...`
// (.ci/run does).
package k8s
