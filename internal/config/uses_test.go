package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"
)

// usesRef is Uses as it was before the registry's ownership was indexed
// and a Config remembered its answers (uses.go): every answer walks the
// registry afresh. TestUsesIsUsesRef holds the fast path to it. memo,
// when not nil, holds the answers given so far for c (as the old
// usesMemo, valid while the ownership graph is acyclic).
func (c *Config) usesRef(key string, seen, memo map[string]bool) bool {
	if u, ok := memo[key]; ok {
		return u
	}
	u := c.usesRefOnce(key, seen, memo)
	if memo != nil {
		memo[key] = u
	}
	return u
}

func (c *Config) usesRefOnce(key string, seen, memo map[string]bool) bool {
	if seen[key] {
		return true
	}
	if c.replacedByRef(key) {
		return false
	}
	seen[key] = true
	defer delete(seen, key)
	owners := map[string]bool{}
	for _, p := range allParts() {
		if !owns(p, key) {
			continue
		}
		owners[p.Group] = owners[p.Group] || c.selectedRef(p, seen, memo)
	}
	some := len(owners) == 0
	for g, ok := range owners {
		switch {
		case ok:
			some = true
		case c.usesRef(g, seen, memo):
			return false
		}
	}
	return some
}

func (c *Config) selectedRef(p Part, seen, memo map[string]bool) bool {
	if !c.usesRef(p.Group, seen, memo) {
		return false
	}
	if p.Group == "agents" && c.allAgents {
		return true
	}
	v, err := c.value(p.Group)
	if err != nil {
		return false
	}
	switch x := v.(type) {
	case string:
		return x == p.Name
	case []string:
		return slices.Contains(x, p.Name)
	}
	return false
}

func (c *Config) replacedByRef(key string) bool {
	for _, r := range replacements {
		if !slices.ContainsFunc(r.keys, func(k string) bool { return within(key, k) }) {
			continue
		}
		if v, err := c.value(r.by); err == nil && !isZero(v) {
			return true
		}
	}
	return false
}

func isZero(v any) bool { return v == nil || fmt.Sprint(v) == "" || fmt.Sprint(v) == "[]" }

// usesKeys are every key of the schema, the sections holding them and the
// group keys, and a few that are no key.
func usesKeys() []string {
	var keys []string
	for _, k := range Keys() {
		for i := range k {
			if k[i] == '.' && !slices.Contains(keys, k[:i]) {
				keys = append(keys, k[:i])
			}
		}
		keys = append(keys, k)
	}
	for _, g := range Groups {
		keys = append(keys, g.Key)
	}
	return append(keys, "", "nosuch", "env.nosuch.key", "env.cartpole.nosuch")
}

// shippedConfigs loads every config of configs/ and examples/ (their
// sweep: sections ignored) without validation, by path from the
// repository's root; a file that does not load is skipped, and fewer than
// 20 is a failure.
func shippedConfigs(t *testing.T) map[string]*Config {
	var paths []string
	for _, pat := range []string{"configs/*.yaml", "examples/*.yaml", "examples/*/*.yaml"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", pat))
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		t.Skip("no configs/ here")
	}
	out := map[string]*Config{}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		c, err := Load(Options{Path: p, NoValidate: true, Sweep: func(k, v *yaml.Node) error { return nil }})
		if err != nil {
			continue
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), p)
		out[filepath.ToSlash(rel)] = c
	}
	if len(out) < 20 {
		t.Fatalf("only %d shipped configs load", len(out))
	}
	return out
}

// The memoised Uses answers as the registry walk it replaced for every
// key, section and group key, on every shipped config; on the synthetic
// one with every group key set to each of its parts in turn (through Set, after Load: a changed config must
// not be answered from its memo), with an expression reward and with
// allAgents; and on a Config built by hand.
func TestUsesIsUsesRef(t *testing.T) {
	keys := usesKeys()
	if !ownershipAcyclic() {
		t.Fatal("the registry has a cycle of ownership")
	}
	check := func(name string, c *Config) {
		t.Helper()
		memo := map[string]bool{} // the walk's answers for c as it is now
		for _, k := range keys {
			if got, want := c.Uses(k), c.usesRef(k, map[string]bool{}, memo); got != want {
				t.Errorf("%s: Uses(%q) = %v, the registry walk says %v", name, k, got, want)
			}
		}
	}
	for name, c := range shippedConfigs(t) {
		check(name, c)
		if name != "configs/synthetic.yaml" {
			continue
		}
		for _, g := range Groups {
			old, _ := c.value(g.Key)
			for _, p := range Parts(g.Key) {
				var x any = p.Name
				if _, ok := old.([]string); ok {
					x = []string{p.Name}
				}
				if err := c.Set(g.Key, x); err != nil {
					t.Fatal(err)
				}
				check(fmt.Sprintf("%s with %s %s", name, g.Key, p.Name), c)
			}
			if err := c.Set(g.Key, old); err != nil {
				t.Fatal(err)
			}
		}
		c.Env.Reward.Expression = "s0"
		check(name+" with an expression reward", c)
		c.Env.Reward.Expression = ""
		c.allAgents = true
		check(name+" with allAgents", c)
		c.allAgents = false
		check(name+" as loaded", c)
	}
	check("a Config built by hand", &Config{Env: Env{Kind: "cartpole"}, Agents: []string{"sm"}})
}

// A loaded Config's answers follow a change made in place: a list key
// changed element by element, and a copy (d := *c) that shares the memo.
func TestUsesFollowsChanges(t *testing.T) {
	c, err := Load(Options{NoValidate: true})
	if err != nil {
		t.Fatal(err)
	}
	c.Agents = []string{"sm", "oracle"}
	if c.Uses("confidence") {
		t.Fatal("agents sm, oracle use confidence")
	}
	c.Agents[0] = "sm-ucb"
	if !c.Uses("confidence") {
		t.Error("after agents[0] = sm-ucb: Uses(confidence) is still false")
	}
	d := *c
	d.Agents = []string{"oracle"}
	if d.Uses("confidence") || !c.Uses("confidence") {
		t.Error("a copy with other agents is answered from the original's memo")
	}
}

// Goroutines asking one loaded Config and its copies (which share its
// memo) for Uses and snapshots get the answers of a Config of their own
// (go test -race checks the memo's lock).
func TestUsesConcurrent(t *testing.T) {
	c, err := Load(Options{NoValidate: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	for g := range 4 {
		go func() {
			d := *c // shares c's memo
			d.Agents = []string{"oracle"}
			for range 20 {
				if g%2 == 0 {
					if b, err := c.YAML(); err != nil || string(b) != string(want) {
						done <- "c's snapshot changed"
						return
					}
				} else if d.Uses("confidence") || !c.Uses("env.family") {
					done <- "a copy answered from another's state"
					return
				}
			}
			done <- ""
		}()
	}
	for range 4 {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}
