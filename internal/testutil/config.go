package testutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
)

// Configs is the directory of the shipped configs seen from a package under
// internal/, where go test runs a package's tests.
const Configs = "../../configs"

// LoadConfig loads the config at path (the embedded defaults when path is
// empty) and fails t if it does not load.
func LoadConfig(t testing.TB, path string) *config.Config {
	t.Helper()
	return LoadConfigOptions(t, config.Options{Path: path})
}

// LoadConfigOptions loads a config as config.Load(o) does and fails t if it
// does not load.
func LoadConfigOptions(t testing.TB, o config.Options) *config.Config {
	t.Helper()
	c, err := config.Load(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// WriteYAML writes text to a config file in t's temporary directory and
// returns its path.
func WriteYAML(t testing.TB, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// LoadYAML loads a config from the YAML text given, as a file would be
// loaded, and returns config.Load's error so a test can check a refusal.
func LoadYAML(t testing.TB, text string) (*config.Config, error) {
	t.Helper()
	return config.Load(config.Options{Path: WriteYAML(t, text)})
}

// Set sets keys of c: Set(t, c, "env.family.sigma", 0.5, "model.kink",
// "none"), keys and values in turn (a key that a part declares in a
// shared section has no field of the Config to assign); it stops the test
// on an unknown key or a value of another type.
func Set(t testing.TB, c *config.Config, kv ...any) {
	t.Helper()
	if len(kv)%2 != 0 {
		t.Fatalf("testutil.Set: %d arguments, want key, value pairs", len(kv))
	}
	for i := 0; i < len(kv); i += 2 {
		key, _ := kv[i].(string)
		if err := c.Set(key, kv[i+1]); err != nil {
			t.Fatalf("testutil.Set %v: %v", kv[i], err)
		}
	}
}
