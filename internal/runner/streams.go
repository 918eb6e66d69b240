package runner

// Random streams are PCG generators seeded from (master seed, purpose,
// indices) by a SplitMix64 hash, so every stream is a pure function of its
// coordinates: results do not depend on the number of workers or on the
// order in which trials run.

const (
	purposeEnv  = 1 // per (seed, episode): s_1 and the real transitions, shared by all agents
	purposePlan = 2 // per (seed, agent): the planner's rollouts
)

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// streamSeed derives the two PCG seeds of a stream.
func streamSeed(master uint64, purpose uint64, idx ...uint64) (uint64, uint64) {
	h := splitmix(master ^ splitmix(purpose))
	for _, i := range idx {
		h = splitmix(h ^ splitmix(i+0x51ed27))
	}
	return h, splitmix(h ^ 0xda3e39cb94b95bdb)
}

// agentIndex is a stable number for an agent name (FNV-1a), so adding an
// agent to a config does not change another agent's streams.
func agentIndex(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return h
}
