package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// sameTree reports where the YAML trees a and b differ in what the strict
// reading and the map decoding read (kind, style, tag, value, anchor,
// position, children, alias targets); "" when they do not.
func sameTree(a, b *yaml.Node, at string) string {
	if (a == nil) != (b == nil) {
		return at + ": one is nil"
	}
	if a == nil {
		return ""
	}
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) {
		return fmt.Sprintf("%s: %+v and %+v", at, *a, *b)
	}
	if a.Alias != nil || b.Alias != nil {
		if d := sameTree(a.Alias, b.Alias, at+"*"); d != "" {
			return d
		}
	}
	for i := range a.Content {
		if d := sameTree(a.Content[i], b.Content[i], at+"/"+strconv.Itoa(i)); d != "" {
			return d
		}
	}
	return ""
}

// The document firstDocument parses with yaml's Decoder, which
// cutSection and checkKnownKeys now read instead of parsing the file again
// with yaml.Unmarshal each, is the tree yaml.Unmarshal gives: on every
// shipped config, golden snapshot and fuzz seed, and on odd documents.
// When firstDocument has none, yaml.Unmarshal has none either or fails.
func TestFirstDocumentIsUnmarshal(t *testing.T) {
	inputs := map[string][]byte{
		"empty": nil, "comment": []byte("# nothing\n"), "null": []byte("~\n"), "scalar": []byte("3\n"),
		"list": []byte("- a\n- b\n"), "flow": []byte("{episodes: 3, env: {kind: expfam}}"),
		"anchors": []byte("env: &e\n  kind: expfam\nmodel: *e\nagents: [&a sm, *a]\n"),
		"bad":     []byte(":\n- ]["), "tabs": []byte("episodes:\t3\n"), "crlf": []byte("episodes: 3\r\nseeds: 2\r\n"),
		"no newline": []byte("episodes: 3"), "doc start": []byte("---\nepisodes: 3\n...\n"),
		"dup": []byte("episodes: 3\nepisodes: 4\n"), "sweep": []byte("episodes: 3\nsweep:\n  planner.tau: [1, 2]\nseeds: 2\n"),
		"bom": []byte("\ufeffepisodes: 3\n"), "block scalar": []byte("env:\n  reward:\n    expression: |\n      s0 +\n      a0\n"),
	}
	for _, pat := range []string{"../../configs/*.yaml", "../../examples/*/*.yaml", "testdata/golden/*.yaml", "testdata/fuzz/FuzzLoad/*"} {
		files, _ := filepath.Glob(pat)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := strings.CutPrefix(string(b), "go test fuzz v1\n[]byte("); ok {
				if u, err := strconv.Unquote(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ")"))); err == nil {
					b = []byte(u)
				}
			}
			inputs[f] = b
		}
	}
	if len(inputs) < 40 {
		t.Fatalf("only %d inputs", len(inputs))
	}
	for name, data := range inputs {
		first, err := firstDocument("x.yaml", data)
		var doc yaml.Node
		uerr := yaml.Unmarshal(data, &doc)
		switch {
		case err != nil:
			continue // refused before either tree is read
		case first == nil:
			if uerr == nil && len(doc.Content) > 0 {
				t.Errorf("%s: firstDocument has no document, yaml.Unmarshal has one", name)
			}
		case uerr != nil:
			t.Errorf("%s: firstDocument parsed it, yaml.Unmarshal fails: %v", name, uerr)
		default:
			if d := sameTree(first, &doc, name); d != "" {
				t.Errorf("the trees differ at %s", d)
			}
		}
	}
}

// A known key written whole at the top level ("planner.tau: 3") is told
// how to nest it, not offered itself as the closest key.
func TestDottedKeyIsToldToNest(t *testing.T) {
	for key, nested := range map[string]string{
		"planner.tau":     "planner: {tau: ...}",
		"env.family.kind": "env: {family: {kind: ...}}",
	} {
		_, err := loadText(t, key+": 3\n")
		want := fmt.Sprintf("line 1: unknown key %q in the top level; a dotted key is not nested in a YAML file: write it as %s", key, nested)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", key, err, want)
		}
	}
	if _, err := loadText(t, "planner.taus: 3\n"); err == nil || strings.Contains(err.Error(), "not nested") {
		t.Errorf("an unknown dotted key: %v; want the plain refusal", err)
	}
}
