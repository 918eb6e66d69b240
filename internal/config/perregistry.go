package config

import "sync"

// perRegistry remembers a value built from the registry of parts as it
// stands: the schema's key list, the ownership index, the default config.
// Register only appends, so the registry's length names its state, and a
// value built at another length is built again.
type perRegistry[T any] struct {
	mu    sync.Mutex
	n     int
	built bool
	v     T
}

// get returns the value for the present registry, calling build (with the
// registry's parts) when none was built for it.
func (m *perRegistry[T]) get(build func(parts []Part) T) T {
	parts := allParts()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.built || m.n != len(parts) {
		m.v, m.n, m.built = build(parts), len(parts), true
	}
	return m.v
}
