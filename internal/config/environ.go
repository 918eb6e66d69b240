package config

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// misspeltEnv is the warning for an SMRL_* variable that names no config
// key, with the closest variable that does.
func misspeltEnv(v *viper.Viper, name string) string {
	cands := slices.Clone(NonConfigEnv)
	for _, k := range v.AllKeys() {
		cands = append(cands, "SMRL_"+strings.ToUpper(strings.ReplaceAll(k, ".", "_")))
	}
	return fmt.Sprintf("warning: %s is not a config key and is ignored; did you mean %s?", name, closest(strings.ToUpper(name), cands))
}

// closest returns the candidate nearest to name in edit distance (the
// first of equals), for "did you mean" hints.
func closest(name string, cands []string) string {
	best, dist := "", -1
	for _, c := range cands {
		// Case does not count: PLANNER.TAU is planner.tau mistyped.
		if d := editDistance(strings.ToLower(name), strings.ToLower(c)); dist < 0 || d < dist {
			best, dist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// envKey maps an environment suffix such as PLANNER_N_ROLLOUTS to the known
// key planner.n_rollouts, or "" when no key matches.
func envKey(v *viper.Viper, suffix string) string {
	want := strings.ToLower(suffix)
	for _, k := range v.AllKeys() {
		if strings.ReplaceAll(k, ".", "_") == want {
			return k
		}
	}
	return ""
}

// fieldType returns the Go type of the config key at a dotted path
// ("planner.tau"), through the Config struct and the registered sections;
// nil if none.
func fieldType(key string) reflect.Type {
	t := reflect.TypeOf(Config{})
	var prefix string
	for _, part := range strings.Split(key, ".") {
		t = childType(t, prefix, part)
		if t == nil {
			return nil
		}
		prefix = joinKey(prefix, part)
	}
	return t
}

// parseEnv converts an environment value to the type of its Config field,
// so a malformed number is reported against its variable. Lists are
// comma-separated (SMRL_AGENTS=sm,lds, SMRL_ENV_ACTIONS=1,-1) or YAML flow
// sequences (SMRL_ENV_W0='[[1, -1]]').
func parseEnv(t reflect.Type, val string) (any, error) {
	val = strings.TrimSpace(val)
	if t == nil {
		return val, nil
	}
	if t.Kind() == reflect.Slice && strings.HasPrefix(val, "[") {
		n, err := flowNode(t, val)
		if err != nil {
			return nil, err
		}
		if err := checkNode(n, t, ""); err != nil {
			var le *LineError
			if errors.As(err, &le) {
				err = errors.New(le.Msg) // the line of a one-line value says nothing
			}
			return nil, fmt.Errorf("must be a list such as %s: %v", flowExample(t), err)
		}
		out := reflect.New(t)
		if err := n.Decode(out.Interface()); err != nil {
			return nil, fmt.Errorf("must be a list such as %s", flowExample(t))
		}
		return out.Elem().Interface(), nil
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
		if leadingZero.MatchString(val) { // a config file refuses it: one rule
			return nil, errors.New("must be written " + leadingZeroText)
		}
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("must be an integer")
		}
		return n, nil
	case reflect.Uint64:
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("must be a non-negative integer")
		}
		return n, nil
	case reflect.Float64:
		if msg := outOfRange(val); msg != "" {
			return nil, errors.New(msg)
		}
		x, err := strconv.ParseFloat(val, 64)
		if err != nil || !decimal(val) && !math.IsNaN(x) && !math.IsInf(x, 0) {
			return nil, fmt.Errorf("must be a number in decimal notation (such as 0.5 or 1e-3)")
		}
		return x, nil
	case reflect.Bool:
		// The spellings a config file takes as a boolean (YAML's), no
		// others: strconv.ParseBool's 1, t and F would be true and false
		// here and an error in a file.
		switch val {
		case "true", "True", "TRUE":
			return true, nil
		case "false", "False", "FALSE":
			return false, nil
		}
		return nil, fmt.Errorf("must be true or false")
	case reflect.Slice:
		parts := strings.Split(val, ",")
		if t.Elem().Kind() == reflect.Slice {
			return nil, fmt.Errorf("must be a list of lists such as %s", example(t))
		}
		out := reflect.MakeSlice(t, 0, len(parts))
		for _, p := range parts {
			x, err := parseEnv(t.Elem(), p)
			if err != nil {
				return nil, fmt.Errorf("entry %q: %v", strings.TrimSpace(p), err)
			}
			out = reflect.Append(out, reflect.ValueOf(x).Convert(t.Elem()))
		}
		return out.Interface(), nil
	}
	return val, nil
}

// flowNode parses val, a YAML flow sequence such as [[1, -1]] for a list
// of type t, into its node. Text after the sequence ("[[1]]junk", "[1]]",
// "[[1]];[[2]]", a second document) is an error: yaml.Unmarshal would drop
// it.
func flowNode(t reflect.Type, val string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(strings.NewReader(val))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil || len(doc.Content) != 1 {
		return nil, fmt.Errorf("must be a list such as %s", flowExample(t))
	}
	var rest yaml.Node
	if err := dec.Decode(&rest); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("must be one list such as %s, with nothing after its closing bracket", flowExample(t))
	}
	return doc.Content[0], nil
}

// example shows a value of list type t for a message.
func example(t reflect.Type) string {
	switch {
	case t.Elem().Kind() == reflect.Slice:
		return "'[[1, 0.5]]'"
	case t.Elem().Kind() == reflect.String:
		return "a,b"
	}
	return "1,2"
}

// flowExample shows a value of list type t as a YAML flow sequence.
func flowExample(t reflect.Type) string {
	switch t.Elem().Kind() {
	case reflect.Slice:
		return "[[1, 0.5]]"
	case reflect.String:
		return "[a, b]"
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return "[1, 2]"
	}
	return "[1, 0.5]"
}
