package config

// The physics constants of the environments (env.pendulum,
// env.mountain_car: masses, lengths, torques, speeds, power) lie in
// [MinPhysics, MaxPhysics]; each environment's Validate checks its own.
// "> 0" let a subnormal mass (1e-320) through, which then failed deep
// inside the run.
const (
	MinPhysics = 1e-6
	MaxPhysics = 1e6
)
