package grid

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
)

// BenchmarkLoadSampleAblation resolves the 15-point sweep of
// configs/ablation-tau-rollouts.yaml (planner.tau × planner.n_rollouts):
// the base config and every point's, validated, with the duplicate check.
func BenchmarkLoadSampleAblation(b *testing.B) {
	path := filepath.Join("..", "..", "configs", "ablation-tau-rollouts.yaml")
	for b.Loop() {
		s, err := LoadSample(context.Background(), config.Options{Path: path}, nil, 0)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Points) != 15 {
			b.Fatalf("%d points, want 15", len(s.Points))
		}
	}
}
