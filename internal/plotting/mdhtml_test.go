package plotting

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The report Markdown subset as HTML: headings, paragraphs with code and
// links (a point's report.md becomes its report.html), tables with
// escaped pipes and brackets, and figures inlined.
func TestMarkdownHTML(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "plots"), 0o755)
	os.WriteFile(filepath.Join(dir, "plots", "a.png"), []byte("\x89PNG fake"), 0o644)
	md := "# smrl sweep: x<y\n\nGrid: `lambda` ∈ {1, 2};\nsee [p](lambda=1/report.md).\n\n" +
		"| key | cell |\n|---|---|\n| \\[sm,oracle\\] | a \\| b |\n\n![a](plots/a.png)\n![b](plots/missing.pdf)\n"
	got, err := markdownHTML([]byte(md), dir)
	if err != nil {
		t.Fatal(err)
	}
	h := string(got)
	for _, want := range []string{
		"<title>smrl sweep: x&lt;y</title>", "<h1>smrl sweep: x&lt;y</h1>",
		"<p>Grid: <code>lambda</code> ∈ {1, 2}; see <a href=\"lambda=1/report.html\">p</a>.</p>",
		"<tr><th>key</th><th>cell</th></tr>", "<tr><td>[sm,oracle]</td><td>a | b</td></tr>",
		`<img alt="a" src="data:image/png;base64,iVBORyBmYWtl">`, `<a href="plots/missing.pdf">b</a>`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q:\n%s", want, h)
		}
	}
	if strings.Contains(h, "|---|") {
		t.Error("the separator row was rendered")
	}
}
