package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/experiment"
	"github.com/spf13/cobra"
)

// ConfigOptions are the flags of smrl config.
type ConfigOptions struct {
	IO      *IOStreams
	Cmd     *cobra.Command
	Config  ConfigFlags
	Sources bool
}

// NewCmdConfig returns smrl config; a non-nil runF is called with the
// parsed options instead of configRun.
func NewCmdConfig(io *IOStreams, runF func(*ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "config [flags]",
		Short: "Print the resolved config (the config.yaml a run would write)",
		Long: `Resolve a config as smrl run does, validate it as run does (its keys, then
its environment: an expression family finite on its grid, a density
normalisable at W0) and print it as YAML: exactly the keys the run uses, as
config.yaml of a results directory holds them.

The sources, highest first: --set KEY=VALUE, SMRL_* environment variables
(the key upper-cased with dots as underscores: SMRL_PLANNER_TAU), the
--config files in order (a later file overrides an earlier one) and the
embedded defaults. With --sources every key is followed by a comment naming
where its value comes from: default, FILE:LINE, SMRL_*, --set, or the
Gymnasium id that set it (env.kind Pendulum-v1).`,
		Example: `  smrl config
  smrl config --config configs/pendulum.yaml --set planner.tau=8 --sources
  smrl config --set env.kind=CartPole-v1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Cmd = cmd
			if runF != nil {
				return runF(opts)
			}
			return configRun(opts)
		},
	}
	addConfigFlags(cmd, &opts.Config, true)
	cmd.Flags().BoolVar(&opts.Sources, "sources", false, "name the origin of every key's value in a comment")
	return cmd
}

func configRun(opts *ConfigOptions) error {
	c, err := loadConfig(opts.Cmd, &opts.Config, nil)
	if err != nil {
		return err
	}
	// The checks of the MDP too, as run makes them: a config printed here
	// runs.
	if _, err := experiment.Check(c); err != nil {
		return err
	}
	y := c.YAML
	if opts.Sources {
		y = c.YAMLSources
	}
	b, err := y()
	if err != nil {
		return err
	}
	_, err = opts.IO.Out.Write(b)
	return err
}

// listWhat are the arguments of smrl list: the groups of parts, then keys.
func listWhat() []string {
	var out []string
	for _, g := range config.Groups {
		out = append(out, g.List)
	}
	return append(out, "keys")
}

// ListOptions are the arguments of smrl list.
type ListOptions struct {
	IO *IOStreams
	// What is the group listed: listWhat's words.
	What string
}

// NewCmdList returns smrl list; a non-nil runF is called with the parsed
// options instead of listRun.
func NewCmdList(io *IOStreams, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "list " + strings.Join(listWhat(), "|"),
		Short: "List the environments, planners, families, features, agents or config keys",
		Long: `List the registered parts a config can select, one per line with a one-line
description: envs (env.kind, with their Gymnasium ids), planners
(planner.kind), families (env.family.kind), features (env.features.kind),
model-features (model.features.kind), agents (agents), action-spaces and
planner-modes; or every config key with its default, the part that reads
it (keys of other parts are refused) and its description.`,
		Example: `  smrl list envs
  smrl list keys`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: listWhat(),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.What = args[0]
			if runF != nil {
				return runF(opts)
			}
			return listRun(opts)
		},
	}
	return cmd
}

func listRun(opts *ListOptions) error {
	what := opts.What
	w := tabwriter.NewWriter(opts.IO.Out, 2, 8, 2, ' ', 0)
	if what == "keys" {
		docs, err := config.KeyDocs()
		if err != nil {
			return err
		}
		fmt.Fprintln(w, "KEY\tDEFAULT\tUSED BY\tDESCRIPTION")
		for _, d := range docs {
			part := d.Part
			if part == "" {
				part = "-"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", d.Key, d.Default, part, d.Doc)
		}
		return w.Flush()
	}
	for _, g := range config.Groups {
		if g.List != what {
			continue
		}
		for _, p := range config.Parts(g.Key) {
			doc := p.Doc
			if len(p.Aliases) > 0 {
				var ids []string
				for _, a := range p.Aliases {
					ids = append(ids, a.Name)
				}
				doc += " (also: " + strings.Join(ids, ", ") + ")"
			}
			fmt.Fprintf(w, "%s\t%s\n", p.Name, doc)
		}
		return w.Flush()
	}
	return usageErrorf("smrl list %s: want one of %s", what, strings.Join(listWhat(), ", "))
}
