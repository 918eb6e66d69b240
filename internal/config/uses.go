package config

import (
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Which keys a config uses (the registry's rule at the top of part.go).
// Validation, the check of the keys a source sets and the snapshot ask it
// of hundreds of keys per Load, and every answer walks the registry's
// owners of the key and the owners of their group keys. So the registry's
// ownership is indexed once per registry length (ownerIndex: the owners
// of each key asked, grouped by group, and whether the ownership graph is
// acyclic), and a loaded Config remembers its answers (usesCache) for as
// long as what they depend on is unchanged: the registry, the values of
// the group keys, whether each replacing key is set (replacements), and
// allAgents. Every call compares those with the ones the answers were
// given for, so a Config changed after Load (a test setting c.Env.Kind,
// Config.Set) is answered afresh, never from a stale memo.

// ownerIndex is the ownership of the registry's parts at one registry
// length.
type ownerIndex struct {
	parts   []Part // the registry when indexed (Register only appends)
	acyclic bool   // ownershipAcyclic
	// groupAt maps a group key to its index in Groups; paths holds the
	// field indices in Config of each of Groups and then of each
	// replacement's key (corePath; nil: read through keyValue).
	groupAt map[string]int
	paths   [][]int
	owners  sync.Map // key → []ownerGroup
}

// ownerGroup is one group of the parts that own a key: the group's index
// in Groups, and the indices in ownerIndex.parts of its parts that own
// the key, in registration order.
type ownerGroup struct {
	group int
	parts []int
}

var ownerIndexes perRegistry[*ownerIndex]

// registryIndex returns the ownership index of the registry as it is now.
func registryIndex() *ownerIndex { return ownerIndexes.get(newOwnerIndex) }

// newOwnerIndex indexes the ownership of parts.
func newOwnerIndex(parts []Part) *ownerIndex {
	ix := &ownerIndex{parts: parts, groupAt: map[string]int{}}
	for i, g := range Groups {
		if _, ok := ix.groupAt[g.Key]; !ok {
			ix.groupAt[g.Key] = i
		}
		ix.paths = append(ix.paths, corePath(g.Key))
	}
	for _, r := range replacements {
		ix.paths = append(ix.paths, corePath(r.by))
	}
	ix.acyclic = acyclic(ix)
	return ix
}

// of returns the groups of the parts that own key (owns), in the order
// their first owner registered.
func (ix *ownerIndex) of(key string) []ownerGroup {
	if g, ok := ix.owners.Load(key); ok {
		return g.([]ownerGroup)
	}
	var out []ownerGroup
	for i := range ix.parts {
		p := &ix.parts[i]
		if !ownsKey(p, key) {
			continue
		}
		g := ix.groupAt[p.Group] // Register refuses a group not in Groups
		j := slices.IndexFunc(out, func(o ownerGroup) bool { return o.group == g })
		if j < 0 {
			out = append(out, ownerGroup{group: g})
			j = len(out) - 1
		}
		out[j].parts = append(out[j].parts, i)
	}
	ix.owners.Store(key, out)
	return out
}

// ownsKey is owns without copying the part.
func ownsKey(p *Part, key string) bool {
	in := func(s string) bool { return s != "" && within(key, s) }
	return in(p.Section) || slices.ContainsFunc(p.Uses, in)
}

// acyclic reports whether no group key reaches itself through the edges
// key → p.Group of the parts p that own key (the recursion of uses, whose
// keys past the first are all group keys).
func acyclic(ix *ownerIndex) bool {
	const (
		open = 1
		done = 2
	)
	state := map[string]int{}
	var visit func(g string) bool
	visit = func(g string) bool {
		switch state[g] {
		case open:
			return false
		case done:
			return true
		}
		state[g] = open
		for _, o := range ix.of(g) {
			if !visit(Groups[o.group].Key) {
				return false
			}
		}
		state[g] = done
		return true
	}
	for i := range ix.parts {
		if !visit(ix.parts[i].Group) {
			return false
		}
	}
	return true
}

// usesState is what c's answers of uses depend on besides the key.
type usesState struct {
	ix        *ownerIndex
	allAgents bool
	groups    [][]string // groupValues of each of Groups
	replaced  []bool     // replacements[i].by is set
}

// matches reports whether c is in state s (with the registry of ix).
func (s *usesState) matches(c *Config, ix *ownerIndex) bool {
	if s.ix != ix || s.allAgents != c.allAgents || len(s.groups) != len(Groups) {
		return false
	}
	rc := reflect.ValueOf(c).Elem()
	for i, g := range Groups {
		if !sameValues(c.valueAt(rc, ix.paths[i], g.Key), s.groups[i]) {
			return false
		}
	}
	for i, r := range replacements {
		rv := c.valueAt(rc, ix.paths[len(Groups)+i], r.by)
		if s.replaced[i] != (rv.IsValid() && !rv.IsZero()) {
			return false
		}
	}
	return true
}

// valueAt returns the value of key in c (rc), by its field indices path
// when not nil; the zero Value when c has no key.
func (c *Config) valueAt(rc reflect.Value, path []int, key string) reflect.Value {
	if path != nil {
		return rc.FieldByIndex(path)
	}
	rv, err := c.keyValue(key)
	if err != nil {
		return reflect.Value{}
	}
	return rv
}

// load sets s to c's state.
func (s *usesState) load(c *Config, ix *ownerIndex) {
	s.ix, s.allAgents = ix, c.allAgents
	s.groups = make([][]string, len(Groups))
	for i, g := range Groups {
		s.groups[i] = slices.Clone(c.groupValues(g.Key)) // c.Agents may change in place
	}
	s.replaced = make([]bool, len(replacements))
	for i, r := range replacements {
		s.replaced[i] = c.isSet(r.by)
	}
}

// sameValues reports whether the group value rv (the zero Value: none) is
// vals, as groupValues returns it, reading it in place: no copy of a
// string or a list.
func sameValues(rv reflect.Value, vals []string) bool {
	switch {
	case !rv.IsValid():
		return vals == nil
	case rv.Kind() == reflect.String && rv.Type() == reflect.TypeFor[string]():
		return len(vals) == 1 && vals[0] == rv.String()
	case rv.Kind() == reflect.Slice && rv.Type() == reflect.TypeFor[[]string]():
		if rv.Len() != len(vals) {
			return false
		}
		for i := range vals {
			if rv.Index(i).String() != vals[i] {
				return false
			}
		}
		return true
	}
	return vals == nil
}

// isSet reports whether key has a non-zero value in c (replacedBy's test).
func (c *Config) isSet(key string) bool {
	rv, err := c.keyValue(key)
	return err == nil && !rv.IsZero()
}

// usesScope answers uses for one Config in one state: memo, when not nil,
// holds the answers given so far (nil when the ownership has a cycle).
type usesScope struct {
	c    *Config
	st   usesState
	memo map[string]bool
	seen map[string]bool // the keys being answered (empty between calls)
}

// newScope returns a scope of c's present state.
func newScope(c *Config) *usesScope {
	s := &usesScope{c: c, seen: map[string]bool{}}
	s.st.load(c, registryIndex())
	if s.st.ix.acyclic {
		s.memo = map[string]bool{}
	}
	return s
}

// usesCache is a loaded Config's memory of its answers of uses: scope,
// valid while the Config is in scope.st. Copies of a Config (d := *c)
// share it, hence the lock; each call checks the state of its own Config.
type usesCache struct {
	mu    sync.Mutex
	scope *usesScope
}

// withScope runs f with a scope of c's present state: c's remembered one
// when c has a cache and its state is unchanged, else a new one (kept
// when c has a cache).
func (c *Config) withScope(f func(s *usesScope)) {
	uc := c.memo
	if uc == nil { // a Config built by hand
		f(newScope(c))
		return
	}
	uc.mu.Lock()
	defer uc.mu.Unlock()
	if uc.scope == nil || !uc.scope.st.matches(c, registryIndex()) {
		uc.scope = newScope(c)
	}
	uc.scope.c = c
	f(uc.scope)
}

// Uses reports whether the run of c reads key (a key or a section): see
// the registry's rule at the top of part.go.
func (c *Config) Uses(key string) (used bool) {
	c.withScope(func(s *usesScope) { used = s.uses(key) })
	return used
}

// selectedPart reports whether part p is selected in c.
func (c *Config) selectedPart(p *Part) (sel bool) {
	c.withScope(func(s *usesScope) {
		if g, ok := s.st.ix.groupAt[p.Group]; ok {
			sel = s.selected(g, p.Name)
		} else { // no registered part's group (the zero Part of a failed lookup)
			sel = s.uses(p.Group) && slices.Contains(c.groupValues(p.Group), p.Name)
		}
	})
	return sel
}

// usesMemo returns Uses of c answered from a memo of its own, each key
// once (when the ownership graph is acyclic; otherwise afresh each time):
// the snapshot asks of every key and section.
func (c *Config) usesMemo() func(string) bool {
	s := newScope(c)
	return s.uses
}

// uses answers Uses of key.
func (s *usesScope) uses(key string) bool {
	if s.memo == nil {
		return s.usesOnce(key)
	}
	if u, ok := s.memo[key]; ok {
		return u
	}
	u := s.usesOnce(key)
	s.memo[key] = u
	return u
}

// selected reports whether the part of Groups[g] named name is selected:
// its group key is used and names it (every agent when allAgents).
func (s *usesScope) selected(g int, name string) bool {
	if !s.uses(Groups[g].Key) {
		return false
	}
	if Groups[g].Key == "agents" && s.st.allAgents {
		return true
	}
	return slices.Contains(s.st.groups[g], name)
}

// usesOnce answers uses of key: not when a set key replaces it; else
// when every owning group that is used selects one of its owners of key,
// and at least one owning group does (or no part owns key).
func (s *usesScope) usesOnce(key string) bool {
	if s.seen[key] {
		return true // a cycle of ownership: a registration error, treated as used
	}
	if s.replacedBy(key) != "" {
		return false
	}
	s.seen[key] = true
	defer delete(s.seen, key)
	owners := s.st.ix.of(key)
	// A group that is not used itself does not veto: a key owned by the
	// families of env.family.kind and of model.family is used by whichever
	// of the two the config uses. At least one owning group must select.
	some := len(owners) == 0
	for _, o := range owners {
		if !s.uses(Groups[o.group].Key) {
			continue
		}
		if !slices.ContainsFunc(o.parts, func(i int) bool { return s.selected(o.group, s.st.ix.parts[i].Name) }) {
			return false
		}
		some = true
	}
	return some
}

// replacedBy is Config.replacedBy from the scope's state.
func (s *usesScope) replacedBy(key string) string {
	for i, r := range replacements {
		if s.st.replaced[i] && r.replaces(key) {
			return r.by
		}
	}
	return ""
}

// corePaths caches corePath: key → []int, nil when key is not a path of
// fields of Config.
var corePaths sync.Map

// corePath returns the field indices of key in Config when each of its
// components is a field of the struct before (fieldByTag), as keyValue
// finds it first; nil otherwise.
func corePath(key string) []int {
	if p, ok := corePaths.Load(key); ok {
		return p.([]int)
	}
	var path []int
	t := reflect.TypeFor[Config]()
	for part := range strings.SplitSeq(key, ".") {
		if t.Kind() != reflect.Struct {
			path = nil
			break
		}
		f, ok := fieldByTag(t, part)
		if !ok {
			path = nil
			break
		}
		path = append(path, f.Index...)
		t = f.Type
	}
	corePaths.Store(key, path)
	return path
}
