package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// A flag overriding the agents that a file (or SMRL_AGENTS) lists says so.
func TestAgentsOverrideNote(t *testing.T) {
	p := write(t, "agents: [sm, oracle]\n")
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.StringSlice("agents", nil, "")
	fs.Parse([]string{"--agents", "lds,oracle"})
	var notes []string
	c, err := Load(Options{Path: p, Flags: map[string]*pflag.Flag{"agents": fs.Lookup("agents")}, Warn: func(m string) { notes = append(notes, m) }})
	if err != nil || !reflect.DeepEqual(c.Agents, []string{"lds", "oracle"}) {
		t.Fatalf("%v %v", err, c)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "--agents lds,oracle overrides agents") || !strings.Contains(notes[0], p) {
		t.Errorf("notes %q", notes)
	}
	// No note when nothing but the defaults is overridden.
	notes = nil
	if _, err := Load(Options{Flags: map[string]*pflag.Flag{"agents": fs.Lookup("agents")}, Warn: func(m string) { notes = append(notes, m) }}); err != nil || len(notes) != 0 {
		t.Errorf("override of the defaults: %v, notes %q", err, notes)
	}
}

// smrl estimate runs no agent: a config whose agents need lambda > 0 is
// still a valid config for it.
func TestIgnoreAgents(t *testing.T) {
	p := write(t, "agents: [sm-ucb]\nlambda: 0\n")
	if _, err := Load(Options{Path: p}); err == nil {
		t.Fatal("lambda 0 with sm-ucb accepted for running agents")
	}
	if _, err := Load(Options{Path: p, IgnoreAgents: true}); err != nil {
		t.Errorf("IgnoreAgents: %v", err)
	}
	// Everything else is still checked.
	if _, err := Load(Options{Path: write(t, "agents: [bogus]\nepisodes: 0\n"), IgnoreAgents: true}); err == nil || !strings.Contains(err.Error(), "episodes") {
		t.Errorf("IgnoreAgents skipped the other checks: %v", err)
	}
}
