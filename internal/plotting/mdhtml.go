package plotting

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/smrl-dev/smrl/internal/fsutil"
)

// The report.html of a sweep is its report.md turned into one
// self-contained page: the Markdown that GridReport (and the sections
// added after it) writes is a small subset, headings, paragraphs, pipe
// tables, images on lines of their own, code spans and links, which
// markdownHTML renders, inlining the PNG and SVG figures. A wide table
// scrolls inside the page instead of being cut.

// AppendReportSection appends a section to dir/report.md: a heading, an
// intro paragraph and a table of header and rows (cells as plain text, escaped).
func AppendReportSection(dir, title, intro string, header []string, rows [][]string) error {
	p := filepath.Join(dir, ReportFile)
	old, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("reading %s: %w", p, err)
	}
	var b strings.Builder
	b.Write(old)
	fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", title, intro)
	b.WriteString(reportTable{Head: header, Rows: rows}.markdown())
	return fsutil.WriteFileAtomic(p, []byte(b.String()))
}

// WriteReportHTML writes dir/report.html from dir/report.md.
func WriteReportHTML(dir string) error {
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		return fmt.Errorf("reading %s: %w", filepath.Join(dir, ReportFile), err)
	}
	page, err := markdownHTML(md, dir)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(filepath.Join(dir, ReportHTMLFile), page)
}

var (
	mdImage = regexp.MustCompile(`^!\[([^\]]*)\]\(([^)]+)\)$`)
	mdLink  = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
	mdCode  = regexp.MustCompile("`([^`]+)`")
)

// markdownHTML renders md (report Markdown, see above) as an HTML page;
// images are read from dir.
func markdownHTML(md []byte, dir string) ([]byte, error) {
	var out bytes.Buffer
	title := "smrl report"
	lines := strings.Split(strings.TrimRight(string(md), "\n"), "\n")
	if len(lines) > 0 && strings.HasPrefix(lines[0], "# ") {
		title = strings.TrimPrefix(lines[0], "# ")
	}
	fmt.Fprintf(&out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>%s</style></head><body>\n", html.EscapeString(title), mdCSS)
	var para []string
	flush := func() {
		if len(para) > 0 {
			fmt.Fprintf(&out, "<p>%s</p>\n", inlineHTML(strings.Join(para, " ")))
			para = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.TrimSpace(l) == "":
			flush()
		case strings.HasPrefix(l, "#"):
			flush()
			level := len(l) - len(strings.TrimLeft(l, "#"))
			level = min(max(level, 1), 6)
			fmt.Fprintf(&out, "<h%d>%s</h%d>\n", level, inlineHTML(strings.TrimSpace(l[level:])), level)
		case strings.HasPrefix(l, "|"):
			flush()
			j := i
			for j < len(lines) && strings.HasPrefix(lines[j], "|") {
				j++
			}
			tableHTML(&out, lines[i:j])
			i = j - 1
		case mdImage.MatchString(strings.TrimSpace(l)):
			flush()
			m := mdImage.FindStringSubmatch(strings.TrimSpace(l))
			if err := imageHTML(&out, dir, m[1], m[2]); err != nil {
				return nil, err
			}
		default:
			para = append(para, strings.TrimSpace(l))
		}
	}
	flush()
	out.WriteString("</body></html>\n")
	return out.Bytes(), nil
}

const mdCSS = `body{font-family:"Liberation Sans",Arial,sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;line-height:1.4}
.scroll{overflow-x:auto;max-width:100%}table{border-collapse:collapse;margin:0.5em 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ccc;padding:0.2em 0.5em;text-align:left;white-space:nowrap}th{background:#f2f2f2}
img{max-width:100%;height:auto}code{background:#f5f5f5;padding:0 0.2em}`

// tableHTML renders the pipe-table lines rows (the second the separator).
func tableHTML(out *bytes.Buffer, rows []string) {
	out.WriteString("<div class=\"scroll\"><table>\n")
	for k, r := range rows {
		if k == 1 && strings.Trim(r, "|-: ") == "" {
			continue
		}
		tag := "td"
		if k == 0 {
			tag = "th"
		}
		out.WriteString("<tr>")
		for _, c := range splitRow(r) {
			fmt.Fprintf(out, "<%s>%s</%s>", tag, inlineHTML(strings.TrimSpace(c)), tag)
		}
		out.WriteString("</tr>\n")
	}
	out.WriteString("</table></div>\n")
}

// splitRow splits a table row at its unescaped pipes.
func splitRow(r string) []string {
	r = strings.TrimSpace(r)
	r = strings.TrimPrefix(r, "|")
	r = strings.TrimSuffix(r, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(r); i++ {
		switch {
		case r[i] == '\\' && i+1 < len(r) && r[i+1] == '|':
			cur.WriteByte('|')
			i++
		case r[i] == '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(r[i])
		}
	}
	return append(cells, cur.String())
}

// inlineHTML renders the code spans and links of a Markdown text (other
// text escaped, Markdown's backslash escapes removed). A link to a
// report.md becomes one to the report.html beside it.
func inlineHTML(s string) string {
	var out strings.Builder
	for s != "" {
		c := mdCode.FindStringIndex(s)
		l := mdLink.FindStringIndex(s)
		switch {
		case c != nil && (l == nil || c[0] <= l[0]):
			out.WriteString(plainHTML(s[:c[0]]))
			out.WriteString("<code>" + html.EscapeString(s[c[0]+1:c[1]-1]) + "</code>")
			s = s[c[1]:]
		case l != nil:
			out.WriteString(plainHTML(s[:l[0]]))
			m := mdLink.FindStringSubmatch(s[l[0]:l[1]])
			href := m[2]
			if strings.HasSuffix(href, "/"+ReportFile) {
				href = strings.TrimSuffix(href, ReportFile) + ReportHTMLFile
			}
			fmt.Fprintf(&out, "<a href=\"%s\">%s</a>", html.EscapeString(href), plainHTML(m[1]))
			s = s[l[1]:]
		default:
			out.WriteString(plainHTML(s))
			s = ""
		}
	}
	return out.String()
}

// plainHTML escapes text, dropping Markdown's backslash escapes.
func plainHTML(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.ContainsRune(`\[]()*_#|<>`+"`", rune(s[i+1])) {
			i++
		}
		b.WriteByte(s[i])
	}
	return html.EscapeString(b.String())
}

// imageHTML inlines the figure src (relative to dir) as a data URL, or
// links it when it is neither PNG nor SVG or cannot be read.
func imageHTML(out *bytes.Buffer, dir, alt, src string) error {
	mime := map[string]string{".png": "image/png", ".svg": "image/svg+xml"}[strings.ToLower(filepath.Ext(src))]
	p := src
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, filepath.FromSlash(src))
	}
	b, err := os.ReadFile(p)
	if mime == "" || err != nil {
		fmt.Fprintf(out, "<p><a href=\"%s\">%s</a></p>\n", html.EscapeString(src), html.EscapeString(alt))
		return nil
	}
	fmt.Fprintf(out, "<p><img alt=\"%s\" src=\"data:%s;base64,%s\"></p>\n", html.EscapeString(alt), mime, base64.StdEncoding.EncodeToString(b))
	return nil
}
