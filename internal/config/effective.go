package config

// Unused returns the keys among keys (or sections) that the run of c does
// not read, given the parts it selects (see Uses). Two configs that differ
// only there run the same trials.
func (c *Config) Unused(keys []string) []string {
	var out []string
	for _, k := range keys {
		if !c.Uses(k) {
			out = append(out, k)
		}
	}
	return out
}

// Effective returns a copy of c (its sections copied too). Its YAML, like
// c's, holds only the keys the run uses: equal for two configs that run
// the same trials.
func (c *Config) Effective() *Config { return c.clone() }
