package main

import (
	"errors"
	"regexp"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// strconvTail is the strconv wording pflag appends to a bad flag value:
// `invalid argument "x" for "--episodes" flag: strconv.ParseInt: parsing
// "x": invalid syntax`.
var strconvTail = regexp.MustCompile(`: strconv\.Parse(Int|Uint|Float|Bool): parsing "[^"]*": (invalid syntax|value out of range)$`)

// plainFlagError says what a typed flag wants in words instead of Go's
// strconv wording; other errors pass unchanged.
func plainFlagError(err error) error {
	m := strconvTail.FindStringSubmatchIndex(err.Error())
	if m == nil {
		return err
	}
	msg := err.Error()
	kind := msg[m[2]:m[3]]
	var want string
	switch kind {
	case "Int":
		want = "a whole number"
	case "Uint":
		want = "a whole number ≥ 0"
	case "Float":
		want = "a number"
	default: // Bool
		want = "true or false"
	}
	if msg[m[4]:m[5]] == "value out of range" {
		return errors.New(msg[:m[0]] + ": out of range for " + want)
	}
	return errors.New(msg[:m[0]] + ": want " + want)
}

// emptyStringFlag refuses a text flag given with an empty value
// (--config ”, --out ”), a repeatable one (--config, --set) given once
// with an empty value, or a list flag (--method, --where, --agents) given
// no item: it silently meant the flag's default, which the user did not
// ask for by giving the flag.
func emptyStringFlag(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		empty := f.Value.Type() == "string" && f.Value.String() == ""
		if a, ok := f.Value.(pflag.SliceValue); ok {
			switch f.Value.Type() {
			case "stringArray":
				empty = slices.Contains(a.GetSlice(), "")
			case "stringSlice": // --where '' parses to no item at all
				empty = len(a.GetSlice()) == 0
			}
		}
		if empty {
			err = usageErrorf("--%s: empty value; leave the flag out for its default", f.Name)
		}
	})
	return err
}
