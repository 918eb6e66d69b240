package config_test

// The parts register their config sections in their packages' init: this
// file links them into the test binary, so that the package's tests
// validate configs against the full registry (env.kind model registers
// from package estimate, beside the model file it reads).
import (
	_ "github.com/smrl-dev/smrl/internal/agent"
	_ "github.com/smrl-dev/smrl/internal/estimate"
)
