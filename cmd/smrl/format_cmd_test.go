package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// smrl estimate --model reads the models a version 1 results directory
// saved (internal/experiment/testdata/v1-results, written before
// results.FormatVersion 2; its models and transitions are unchanged by
// version 2) and scores them on its transitions.
func TestEstimateModelOfFormatV1(t *testing.T) {
	dir := filepath.Join("..", "..", "internal", "experiment", "testdata", "v1-results")
	code, out, errOut := run(t, "estimate", "--model", filepath.Join(dir, "models", "sm-seed0.json"), "--data", filepath.Join(dir, "transitions.csv"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "sm      80") {
		t.Errorf("the model is not scored on the fixture's 80 transitions:\n%s", out)
	}
}
