package runner

import (
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// mdpStepper returns a private stepper of the true model: steppers hold
// scratch space, the model and its sampling table are shared.
func mdpStepper(m *env.MDP) *expfam.Stepper { return expfam.NewStepper(m.True) }
