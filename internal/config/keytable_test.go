package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The key table of docs/configuration.md lies between these markers, each
// on its own line; the prose around them is hand-written.
const (
	keyTableBegin = "<!-- keys:begin: generated from the registry by go test ./internal/config -run TestKeyTableInDocs -update; edit default.yaml or a part's doc tags, not this table -->\n"
	keyTableEnd   = "<!-- keys:end -->\n"
)

// htmlStart matches a "<" that Markdown would read as the start of an
// HTML tag ("results/<name>/"), which would hide the text after it.
var htmlStart = regexp.MustCompile(`<([A-Za-z/!?])`)

// cell renders s as the text of a Markdown table cell: a "|" would end
// the cell, a "<" may open an HTML tag.
func cell(s string) string {
	return htmlStart.ReplaceAllString(strings.ReplaceAll(s, "|", `\|`), "&lt;$1")
}

// keyTable renders the key table of docs/configuration.md from KeyDocs,
// the rows and columns of smrl list keys: every key in the order of Keys,
// its default, the parts that read it ("—": every run) and its doc.
func keyTable(t *testing.T) string {
	docs, err := KeyDocs()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| key | default | used by | description |\n| --- | --- | --- | --- |\n")
	for _, d := range docs {
		part := "—"
		if d.Part != "" {
			part = cell(d.Part)
		}
		def := "—"
		if d.Default != "" {
			def = "`" + strings.ReplaceAll(d.Default, "|", `\|`) + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", d.Key, def, part, cell(d.Doc))
	}
	return b.String()
}

// TestKeyTableInDocs checks that the key table of docs/configuration.md is
// the registry's, row for row: every key smrl list keys prints, with its
// default, the parts that read it and its doc. -update rewrites the table
// between its markers: go test ./internal/config -run TestKeyTableInDocs -update
func TestKeyTableInDocs(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "configuration.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, keyTableBegin)
	if start < 0 {
		t.Fatalf("%s has no line %q: put the markers %q and %q around its key table", path, strings.TrimSpace(keyTableBegin), strings.TrimSpace(keyTableBegin), strings.TrimSpace(keyTableEnd))
	}
	start += len(keyTableBegin)
	end := strings.Index(doc[start:], keyTableEnd)
	if end < 0 {
		t.Fatalf("%s: the key table has no end marker %q", path, strings.TrimSpace(keyTableEnd))
	}
	end += start
	want := keyTable(t)
	if doc[start:end] == want {
		return
	}
	if *updateGolden {
		if err := os.WriteFile(path, []byte(doc[:start]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the key table of %s is not the registry's (rerun with -update):\ngot:\n%s\nwant:\n%s", path, doc[start:end], want)
}

// TestKeyTableHoldsEveryKey checks the generated table names every key
// of Keys once, those of registered sections (sm.floor, env.cartpole.*,
// planner.cem.*) included, and escapes the cells that Markdown would break.
func TestKeyTableHoldsEveryKey(t *testing.T) {
	table := keyTable(t)
	for _, k := range append(Keys(), "sm.floor", "env.cartpole.gravity", "planner.cem.population") {
		if n := strings.Count(table, "| `"+k+"` |"); n != 1 {
			t.Errorf("key %s has %d rows in the key table, want 1", k, n)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"results go to results/<name>/", "results go to results/&lt;name>/"},
		{"|velocity| <= max_speed", `\|velocity\| <= max_speed`},
		{"sm | lds", `sm \| lds`},
	} {
		if got := cell(tc.in); got != tc.want {
			t.Errorf("cell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Every key is documented (smrl list keys, the key table): by its comment
// in default.yaml, continuation lines included, or by its section's doc
// tag. Twenty keys had none, and nine comments were cut at their first
// line.
func TestEveryKeyHasADescription(t *testing.T) {
	docs, err := KeyDocs()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if strings.TrimSpace(d.Doc) == "" {
			t.Errorf("%s has no description (a comment on its line of default.yaml, or its section's doc tag)", d.Key)
		}
	}
	for key, tail := range map[string]string{
		"agents":            "(see confidence)",
		"planner.tie_break": "the highest mean value",
		"env.kind":          "(smrl list envs)",
	} {
		for _, d := range docs {
			if d.Key == key && !strings.HasSuffix(d.Doc, tail) {
				t.Errorf("%s: %q does not end with its continuation line's %q", key, d.Doc, tail)
			}
		}
	}
}
