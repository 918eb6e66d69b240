package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// NewCmdVersion returns smrl version.
func NewCmdVersion(io *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of smrl",
		Long: `Print the version of smrl, the Go version and platform it was built with,
and the VCS revision it was built from when known.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(io.Out, versionLine())
			return err
		},
	}
}

// versionLine is "smrl <version> (<go version>, <GOOS>/<GOARCH>)", followed
// by "\nrevision <rev>" when the build recorded one.
func versionLine() string {
	s := fmt.Sprintf("smrl %s (%s, %s/%s)", versionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if rev := vcsRevision(); rev != "" {
		s += "\nrevision " + rev
	}
	return s
}

// versionString is the main module's version from the build info
// ("v1.2.3", or a pseudo-version), or "devel" when there is none.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return "devel"
	}
	return bi.Main.Version
}

// vcsRevision is the VCS revision the binary was built from, with the
// suffix "-dirty" when the working tree had local changes, or "" when the
// build did not record one (go test, go run, builds outside a checkout).
func vcsRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}
