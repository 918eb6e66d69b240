package config

// Physics constants (env.pendulum, env.mountain_car) lie in
// [MinPhysics, MaxPhysics]: "> 0" let a subnormal mass (1e-320) through,
// which then failed deep inside the run (exit 1, with a hint about
// lambda), because the dynamics divide by it and the model's coordinate
// scales derive from it.
const (
	MinPhysics = 1e-6
	MaxPhysics = 1e6
)

// physicsConstant reports (through bad) a physics constant of section
// outside [MinPhysics, MaxPhysics] or not finite.
func physicsConstant(bad func(key, format string, args ...any), section, key string, v float64) {
	if !(v >= MinPhysics && v <= MaxPhysics) || !finite(v) {
		bad(section+"."+key, "must lie in [1e-6, 1e6], got %v: the dynamics divide by it or scale by it, and under- or overflow beyond", v)
	}
}
