package config

import (
	"strings"
	"testing"
)

// A number outside float64's range is "out of range" in the words of data
// files and expressions, whether it comes from a file, an SMRL_ variable
// or --set, for lambda (which also takes the word cv) as for other keys;
// it was "must be a number in decimal notation" or "want cv or a number".
func TestNumbersOutOfRange(t *testing.T) {
	const big, small = "is out of range: too large for a float64", "is out of range: too small for a float64 (it would be 0)"
	for _, tc := range []struct {
		key, val, want string
	}{
		{"lambda", "1e400", big},
		{"lambda", "1e-400", small},
		{"sm.floor", "1e400", big},
		{"sm.floor", "-1e-400", small},
	} {
		leaf := tc.key[strings.LastIndex(tc.key, ".")+1:]
		section := ""
		if i := strings.Index(tc.key, "."); i > 0 {
			section = tc.key[:i]
		}
		text := tc.key + ": " + tc.val + "\n"
		if section != "" {
			text = section + ":\n  " + leaf + ": " + tc.val + "\n"
		}
		if _, err := loadText(t, text); err == nil || !strings.Contains(err.Error(), tc.val+" "+tc.want) {
			t.Errorf("file %s: %v, want %q", tc.key, err, tc.want)
		}
		env := "SMRL_" + strings.ToUpper(strings.ReplaceAll(tc.key, ".", "_")) + "=" + tc.val
		if _, err := Load(Options{Environ: []string{env}}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", env, err, tc.want)
		}
		if _, err := ParseValue(tc.key, tc.val); err == nil || !strings.Contains(err.Error(), `"`+tc.val+`" `+tc.want) {
			t.Errorf("--set %s=%s: %v, want %q", tc.key, tc.val, err, tc.want)
		}
	}
}
