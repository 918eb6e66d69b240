package runner

import (
	"context"
	"os"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
)

func TestZZProfPend(t *testing.T) {
	ag := os.Getenv("ZZ_AGENT")
	if ag == "" {
		t.Skip()
	}
	c, err := config.Load(config.Options{Path: "../../configs/pendulum.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 2; s++ {
		if _, err := RunTrial(context.Background(), c, m, Trial{Agent: ag, Seed: s}); err != nil {
			t.Fatal(err)
		}
	}
}
