package config

// optional are the config sections that matter only for some env.kind or
// planner.kind: the sections of the other environments, the learners'
// model of the physical environments (expfam learners use env.family and
// env.features), and the settings of the planners not chosen.
var optional = []struct {
	section string
	used    func(c *Config) bool
	clear   func(c *Config)
}{
	{"env.cartpole", func(c *Config) bool { return c.Env.Kind == "cartpole" }, func(c *Config) { c.Env.CartPole = CartPole{} }},
	{"env.pendulum", func(c *Config) bool { return c.Env.Kind == "pendulum" }, func(c *Config) { c.Env.Pendulum = Pendulum{} }},
	{"env.mountain_car", func(c *Config) bool { return c.Env.Kind == "mountain-car" }, func(c *Config) { c.Env.MountainCar = MountainCar{} }},
	{"model", func(c *Config) bool { return c.Env.Kind != "expfam" }, func(c *Config) { c.Model = Model{} }},
	{"planner.cem", func(c *Config) bool { return c.Planner.Kind == "cem" }, func(c *Config) { c.Planner.CEM = CEM{} }},
	{"planner.mppi", func(c *Config) bool { return c.Planner.Kind == "mppi" }, func(c *Config) { c.Planner.MPPI = MPPI{} }},
}

// Unused returns the sections of c that do not change what its run does,
// given its env.kind and planner.kind. Two configs that differ only there
// run the same trials.
func (c *Config) Unused() []string {
	var out []string
	for _, s := range optional {
		if !s.used(c) {
			out = append(out, s.section)
		}
	}
	return out
}

// Effective returns a copy of c with its Unused sections set to their
// zero values: equal for two configs that run the same trials.
func (c *Config) Effective() *Config {
	d := *c
	for _, s := range optional {
		if !s.used(c) {
			s.clear(&d)
		}
	}
	return &d
}
