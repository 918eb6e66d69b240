package config

import (
	"reflect"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/cast"
)

// unmarshalExact decodes m, a tree of viper's AllSettings (or a part of
// one), into out as a new viper holding only m would by UnmarshalExact
// (viper.New, MergeConfigMap(m), UnmarshalExact(out)), without building
// that viper: MergeConfigMap lower-cases the keys of m and of the maps in
// its lists (insensitivise), UnmarshalExact decodes its AllSettings, which
// for such a tree is the tree itself less the empty maps and nil leaves
// (settings), with mapstructure under viper's default decoder
// configuration and unknown keys refused. decode called that viper once
// per section: a third of a Load. TestDecodeIsViper holds the two
// to the same values and errors.
func unmarshalExact(m map[string]any, out any) error {
	insensitivise(m)
	d, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		WeaklyTypedInput: true,
		DecodeHook: mapstructure.ComposeDecodeHookFunc(
			mapstructure.StringToTimeDurationHookFunc(),
			stringToWeakSlice(","),
		),
		ErrorUnused: true,
		Result:      out,
	})
	if err != nil {
		return err
	}
	settings(m)
	return d.Decode(m)
}

// stringToWeakSlice is viper's decode hook of that name (viper 1.21): a
// string decoded into a slice is split at sep, "" into an empty list.
func stringToWeakSlice(sep string) mapstructure.DecodeHookFunc {
	return func(f, t reflect.Type, data any) (any, error) {
		if f.Kind() != reflect.String || t.Kind() != reflect.Slice {
			return data, nil
		}
		raw := data.(string)
		if raw == "" {
			return []string{}, nil
		}
		return strings.Split(raw, sep), nil
	}
}

// insensitivise is viper's insensitiviseMap (1.21): the keys of m and of
// the maps within it, in lists too, lower-cased; a map[any]any becomes a
// map[string]any (cast.ToStringMap, as viper does).
func insensitivise(m map[string]any) {
	for key, val := range m {
		val = insensitiviseValue(val)
		lower := strings.ToLower(key)
		if key != lower {
			delete(m, key)
		}
		m[lower] = val
	}
}

func insensitiviseValue(val any) any {
	switch v := val.(type) {
	case map[any]any:
		sm := cast.ToStringMap(v)
		insensitivise(sm)
		return sm
	case map[string]any:
		insensitivise(v)
	case []any:
		for i, x := range v {
			v[i] = insensitiviseValue(x)
		}
	}
	return val
}

// settings removes from m what viper's AllSettings leaves out: nil leaves
// and maps that hold no leaf. It reports whether m holds a leaf.
func settings(m map[string]any) bool {
	for k, v := range m {
		switch x := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			if !settings(x) {
				delete(m, k)
			}
		}
	}
	return len(m) > 0
}
