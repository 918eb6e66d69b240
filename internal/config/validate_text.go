package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/smrl-dev/smrl/internal/expr"
)

// numberAsText reports whether a YAML number given for a text key (a
// name such as 2024) reaches the key as written: the config's decoding
// turns 0x10 into "16" and 1e308 into 309 digits, which must be quoted to
// be meant.
func numberAsText(tag, value string) bool {
	switch tag {
	case "!!int":
		v, err := strconv.ParseInt(value, 10, 64)
		return err == nil && strconv.FormatInt(v, 10) == value
	case "!!float":
		v, err := strconv.ParseFloat(value, 64)
		return err == nil && strconv.FormatFloat(v, 'f', -1, 64) == value
	}
	return false
}

// decimal reports whether s is written in decimal notation (digits, sign,
// point, exponent), as smrl reads numbers: strconv.ParseFloat also takes
// 0x1p-2 and 1_0, which no one means as a config value.
func decimal(s string) bool {
	return s != "" && strings.Trim(s, "0123456789+-.eE") == ""
}

// underflows reports whether the decimal number s is not zero but rounds
// to 0 as a float64 (1e-400): it would reach its key as 0.
func underflows(s string) bool {
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && expr.Underflows(s, v)
}

// outOfRange says how a number written in decimal notation lies outside
// float64's range, in the words of data files and expressions ("" for one
// inside it, or one that is not decimal): 1e400 is too large, 1e-400 too
// small (it would be read as 0).
func outOfRange(s string) string {
	switch _, err := strconv.ParseFloat(s, 64); {
	case underflows(s):
		return expr.TooSmall
	case errors.Is(err, strconv.ErrRange) && decimal(s):
		return expr.TooLarge
	}
	return ""
}

// envSuffixCase reports whether the SMRL_ variable suffix is upper case,
// as the variables of config keys are (SMRL_SEEDS): SMRL_seeds is not one
// of them.
func envSuffixCase(suffix string) bool { return suffix == strings.ToUpper(suffix) }

// validateAgentList reports the first agent listed twice, once, with how
// many more there are: a list of 100 000 duplicates made a 5 MB error
// line. (Unknown agents are the registry's: validateParts.)
func (c *Config) validateAgentList(bad func(key, format string, args ...any)) {
	seen := map[string]int{}
	var twice []string
	for _, a := range c.Agents {
		if seen[a] == 1 {
			twice = append(twice, a)
		}
		seen[a]++
	}
	if len(twice) > 0 {
		bad("agents", "agent %q listed twice%s", clip(twice[0]), andMore(len(twice)))
	}
}

// andMore is the tail of a message that reports the first of n problems
// of one kind.
func andMore(n int) string {
	if n > 1 {
		return fmt.Sprintf(" (and %d more)", n-1)
	}
	return ""
}

// clip shortens s for a message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:61] + "..."
	}
	return s
}
