package main

import (
	"fmt"
	"os"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// loadConfig resolves the config of cmd: the embedded defaults, the file at
// path (none when empty), SMRL_* environment variables, then the flags of
// cmd that were set. keys maps a config key ("episodes", "estimate.n") to
// the name of the flag of cmd that overrides it. Every error wraps
// errs.ErrInvalidInput.
func loadConfig(cmd *cobra.Command, path string, keys map[string]string) (*config.Config, error) {
	return loadConfigOpts(cmd, config.Options{Path: path}, keys)
}

// loadConfigOpts is loadConfig with further options (opt.Flags, Environ and
// Warn are filled in). Warnings and notes go to stderr as "smrl: ..." lines.
func loadConfigOpts(cmd *cobra.Command, opt config.Options, keys map[string]string) (*config.Config, error) {
	flags := make(map[string]*pflag.Flag, len(keys))
	for key, name := range keys {
		f := cmd.Flags().Lookup(name)
		if f == nil {
			// A programming error: the key table names a flag cmd lacks.
			return nil, fmt.Errorf("internal error: %s has no flag --%s for config key %s", cmd.CommandPath(), name, key)
		}
		flags[key] = f
	}
	opt.Flags, opt.Environ = flags, os.Environ()
	opt.Warn = func(msg string) { fmt.Fprintln(cmd.ErrOrStderr(), "smrl: "+msg) }
	return config.Load(opt)
}
