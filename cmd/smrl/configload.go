package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ConfigFlags are the flags that choose a config, shared by every command
// that reads one: --config (repeatable: files layered in order, a later
// file's keys win) and --set KEY=VALUE (repeatable, one value each, in
// the grammar of sweep's --set). Precedence, highest first: the command's
// own flags (--seeds, ...), --set, SMRL_* variables, the files in order,
// the embedded defaults.
type ConfigFlags struct {
	Paths []string
	Set   []string
}

// addConfigFlags adds --config and, with set, --set to cmd.
func addConfigFlags(cmd *cobra.Command, cf *ConfigFlags, set bool) {
	f := cmd.Flags()
	f.StringArrayVarP(&cf.Paths, "config", "c", nil, "YAML config `FILE` (default: the embedded paper config); repeatable: later files override earlier ones")
	cmd.RegisterFlagCompletionFunc("config", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return []cobra.Completion{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
	})
	if set {
		f.StringArrayVar(&cf.Set, "set", nil, "set a config key: `KEY=VALUE` (a list in brackets: env.w0=[[1,-1]]); repeatable; overrides SMRL_* and --config")
		cmd.RegisterFlagCompletionFunc("set", completeSetKeys)
	}
}

// options turns the flags into config.Options: the files, and the parsed
// --set settings (an error names the argument).
func (cf *ConfigFlags) options() (config.Options, error) {
	var opt config.Options
	if len(cf.Paths) > 0 {
		opt.Path, opt.Paths = cf.Paths[0], cf.Paths[1:]
	}
	seen := map[string]bool{}
	for _, arg := range cf.Set {
		s, err := grid.ParseOne(arg)
		if err != nil {
			return opt, err
		}
		if seen[s.Key] {
			return opt, usageErrorf("--set %s: %s is set twice; give each key once", arg, s.Key)
		}
		seen[s.Key] = true
		opt.Set = append(opt.Set, s)
	}
	return opt, nil
}

// description is the description of the config for the report
// (config.Description): the leading comment of the first --config file,
// which the later ones override key by key, or of the embedded config.
func (cf *ConfigFlags) description() string {
	if len(cf.Paths) == 0 {
		return config.Description("")
	}
	return config.Description(cf.Paths[0])
}

// loadConfig resolves the config of cmd: the embedded defaults, the files
// of cf, SMRL_* environment variables, --set, then the flags of cmd that
// were set. keys maps a config key ("episodes", "estimate.n") to the name
// of the flag of cmd that overrides it. Every error wraps
// errs.ErrInvalidInput.
func loadConfig(cmd *cobra.Command, cf *ConfigFlags, keys map[string]string) (*config.Config, error) {
	opt, err := cf.options()
	if err != nil {
		return nil, err
	}
	return loadConfigOpts(cmd, opt, keys)
}

// loadConfigOpts is loadConfig with further options (opt.Flags, Environ and
// Warn are filled in). Warnings and notes go to stderr as "smrl: ..." lines.
func loadConfigOpts(cmd *cobra.Command, opt config.Options, keys map[string]string) (*config.Config, error) {
	flags, err := configFlags(cmd, keys)
	if err != nil {
		return nil, err
	}
	opt.Flags, opt.Environ, opt.Warn = flags, os.Environ(), warner(cmd)
	return config.Load(opt)
}

// configFlags maps the config keys of keys to cmd's flags.
func configFlags(cmd *cobra.Command, keys map[string]string) (map[string]*pflag.Flag, error) {
	flags := make(map[string]*pflag.Flag, len(keys))
	for key, name := range keys {
		f := cmd.Flags().Lookup(name)
		if f == nil {
			// A programming error: the key table names a flag cmd lacks.
			return nil, fmt.Errorf("internal error: %s has no flag --%s for config key %s", cmd.CommandPath(), name, key)
		}
		flags[key] = f
	}
	return flags, nil
}

// warner prints config warnings and notes on stderr as "smrl: ..." lines.
func warner(cmd *cobra.Command) func(string) {
	return func(msg string) { fmt.Fprintln(cmd.ErrOrStderr(), "smrl: "+msg) }
}

// completeSetKeys completes --set: the config keys followed by "=", then
// after KEY= the part names of a key that selects parts (env.kind=...).
func completeSetKeys(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if key, _, ok := strings.Cut(toComplete, "="); ok {
		var out []cobra.Completion
		for _, p := range config.Parts(key) {
			out = append(out, cobra.CompletionWithDesc(key+"="+p.Name, p.Doc))
			for _, a := range p.Aliases {
				out = append(out, cobra.CompletionWithDesc(key+"="+a.Name, p.Doc))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, k := range config.Keys() {
		if strings.HasPrefix(k, toComplete) {
			out = append(out, k+"=")
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// completeWords completes a flag whose values are words (comma-separated
// for a list flag).
func completeWords(words ...string) func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		prefix := ""
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			prefix = toComplete[:i+1]
		}
		done := strings.Split(prefix, ",")
		var out []cobra.Completion
		for _, w := range words {
			if !slices.Contains(done, w) {
				out = append(out, prefix+w)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// sweepOutDir is the default results directory of a sweep of c:
// results/<name>-sweep, beside the results/<name> of smrl run and compare
// of the same config, so that the two never collide.
func sweepOutDir(defaultOut string) string { return filepath.Clean(defaultOut) + "-sweep" }
