package plotting

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/smrl-dev/smrl/internal/fsutil"
	"github.com/smrl-dev/smrl/internal/results"
)

// ReportHTMLFile is the name of the self-contained HTML report written
// next to report.md.
const ReportHTMLFile = "report.html"

// report is the content of report.md and report.html.
type report struct {
	title, description, command, note string
	tableNote                         string // results.ClipNote when the table clipped an interval
	results                           reportTable
	aggregate                         *aggregateReport // nil: no aggregate files
	figures                           []string         // paths, in order
	smooth                            int
	warnings                          []string // ReportInfo.Warnings
}

// caption returns the caption of the figure name (its registration's),
// with the moving window of the per-episode figures.
func (r *report) caption(name string) string { return runCaption(name, r.smooth) }

// newReport gathers a report's content: the results table of sums with
// info's columns (or those the data allow), the title, description and
// command line of info.
func newReport(absDir string, sum *summaryData, figures []string, info ReportInfo) *report {
	// The table clips its intervals to the seeds' ranges, which summary.csv
	// does not hold: they come from episodes.csv, as the figures' do.
	sums := results.WithSeedRanges(sum.results(), readSeedRows(filepath.Join(absDir, episodesFile)))
	col := results.Columns{Cumulative: true, PlusCount: true}
	if info.Columns != nil {
		col = *info.Columns
	} else {
		first := math.NaN()
		for _, s := range sums {
			if math.IsNaN(first) {
				first = s.Steps.Mean
			} else if s.Steps.Mean != first {
				col.Terminating = true
			}
		}
	}
	r := &report{description: info.Description, figures: figures, smooth: info.Smooth, warnings: info.Warnings,
		note: "Values are means over seeds with 95% Student-t intervals in brackets."}
	r.title = "smrl results: " + filepath.Base(absDir)
	if info.Name != "" {
		r.title = "smrl results: " + info.Name
	}
	r.command = ShellJoin(info.CommandLine)
	r.results.Head, r.results.Rows, r.tableNote = results.TableCells(sums, col)
	return r
}

// results converts d to the summaries of package results, for its table.
func (d *summaryData) results() []results.Summary {
	st := func(m, lo, hi float64) results.Stat { return results.Stat{Mean: m, Lo: lo, Hi: hi} }
	var out []results.Summary
	for _, a := range d.Agents {
		for _, r := range d.Rows[a] {
			full := 0
			if !math.IsNaN(r.FullSeeds) {
				full = int(r.FullSeeds)
			}
			out = append(out, results.Summary{Agent: a, Episode: r.Episode, Seeds: r.Seeds,
				CumReward: st(r.CumRewardMean, r.CumRewardLo, r.CumRewardHi),
				CumRegret: st(r.CumRegretMean, r.CumRegretLo, r.CumRegretHi),
				PlusCount: st(r.PlusCountMean, r.PlusCountLo, r.PlusCountHi),
				Reward:    st(r.RewardMean, r.RewardLo, r.RewardHi),
				Steps:     st(r.StepsMean, r.StepsLo, r.StepsHi), WErrorMean: r.WErrorMean,
				FinalReturn:     st(r.FinalReturnMean, r.FinalReturnLo, r.FinalReturnHi),
				FirstFullMedian: r.FirstFullMedian, FullSeeds: full,
				EpisodeReturn: st(r.EpisodeReturn[0], r.EpisodeReturn[1], r.EpisodeReturn[2]),
				EpisodeLength: st(r.EpisodeLength[0], r.EpisodeLength[1], r.EpisodeLength[2])})
		}
	}
	return out
}

// ShellJoin joins a command line for display, quoting words a shell would
// split or expand, so that pasting it into a POSIX shell gives back args:
// such a word is put in single quotes, in which only a single quote itself
// needs an escape (closing the quotes, a backslashed quote, reopening).
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// htmlCell is a table cell of report.html: its spaces no-break spaces
// (U+00A0) but the one before an interval's "[", so that a narrow column
// wraps "4.704 [4.337, 5.072]" between the mean and its interval and
// nowhere else. The tables then fit 1280 px (and a wider table than the
// text column reaches out to the window's edge, .table in the style).
func htmlCell(s string) string {
	s = strings.ReplaceAll(s, " ", "\u00a0")
	return strings.ReplaceAll(s, "\u00a0[", " [")
}

// htmlFigure is one figure of report.html: inlined as a data URI when a
// browser shows its format, else linked.
type htmlFigure struct {
	Name, Caption string
	Src           template.URL  // data URI, for imgTemplate (imgElement)
	Img           template.HTML // the <img> element of its data URI (dataImgElement); empty for a linked figure
	Link          string        // the file's name, for a figure that is not inlined
}

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{"code": codeSpans, "cell": htmlCell}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
code, pre { font-family: ui-monospace, monospace; background: #f4f4f4; }
pre { padding: .6rem; overflow-x: auto; white-space: pre-wrap; }
.table { overflow-x: auto; width: max-content; max-width: calc(100vw - max(0px, (100vw - 62rem) / 2) - 2rem); }
table { border-collapse: collapse; font-size: .85rem; margin: 1rem 0; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { min-width: 4em; }
td { font-family: ui-monospace, monospace; }
th { background: #f0f0f0; }
figure { margin: 2rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: .9rem; color: #444; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{if .Description}}<p>{{.Description}}</p>{{end}}
{{if .Command}}<p>Command:</p>
<pre>{{.Command}}</pre>{{end}}
<p>{{.Note}}</p>
<h2>Results</h2>
{{template "table" .Results}}
{{if .TableNote}}<p>{{.TableNote}}</p>
{{end}}{{if .Warnings}}<h2>Warnings</h2>
<p>{{.WarningsIntro}}</p>
<ul>
{{range .Warnings}}<li>{{.}}</li>
{{end}}</ul>
{{end}}{{with .Aggregate}}<h2>Aggregate metrics</h2>
<p>{{code .Intro}}</p>
{{template "table" .Metrics}}
{{if .Improvement.Rows}}<p>{{.ImprovementIntro}}</p>
{{template "table" .Improvement}}
{{end}}{{end}}{{if .Figures}}<h2>Figures</h2>{{end}}
{{range .Figures}}<figure id="{{.Name}}">
<h3>{{.Name}}</h3>
{{if .Img}}{{.Img}}{{else}}<p><a href="{{.Link}}">{{.Link}}</a> (a format browsers do not show inline; open the file next to this report)</p>{{end}}
{{if .Caption}}<figcaption>{{.Caption}}</figcaption>{{end}}
</figure>
{{end}}</body>
</html>
{{define "table"}}<div class="table"><table>
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{cell .}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>{{end}}`))

// htmlAggregate is the aggregate section for the template.
type htmlAggregate struct {
	Intro, ImprovementIntro string
	Metrics, Improvement    reportTable
}

// codeSpans escapes s for HTML with its Markdown code spans (text in
// backquotes) as code elements.
func codeSpans(s string) template.HTML {
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 {
			b.WriteString("<code>" + template.HTMLEscapeString(part) + "</code>")
		} else {
			b.WriteString(template.HTMLEscapeString(part))
		}
	}
	return template.HTML(b.String())
}

// writeHTML writes r as dir/report.html, atomically: one file with every
// PNG, SVG or JPEG figure inlined as a data URI, so that any browser opens
// it without a server or the plots directory.
func writeHTML(dir string, r *report) error {
	data := struct {
		Title, Description, Command, Note string
		TableNote                         string
		Results                           reportTable
		WarningsIntro                     string
		Warnings                          []string
		Aggregate                         *htmlAggregate
		Figures                           []htmlFigure
	}{Title: r.title, Description: r.description, Command: r.command, Note: r.note, TableNote: r.tableNote, Results: r.results,
		WarningsIntro: warningsIntro, Warnings: r.warnings}
	if a := r.aggregate; a != nil {
		data.Aggregate = &htmlAggregate{Intro: aggregateIntro, ImprovementIntro: improvementIntro,
			Metrics: a.metrics, Improvement: a.improvement}
	}
	for _, fig := range r.figures {
		name := strings.TrimSuffix(filepath.Base(fig), filepath.Ext(fig))
		f := htmlFigure{Name: name, Caption: r.caption(name)}
		mime := map[string]string{".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}[strings.ToLower(filepath.Ext(fig))]
		if mime == "" {
			f.Link = filepath.Base(fig)
			if rel, err := relLink(dir, fig); err == nil {
				f.Link = rel
			}
		} else {
			b, err := os.ReadFile(fig)
			if err != nil {
				return fmt.Errorf("inlining %s in %s: %w", fig, ReportHTMLFile, err)
			}
			if f.Img, err = dataImgElement(mime, b, f.Name); err != nil {
				return err
			}
		}
		data.Figures = append(data.Figures, f)
	}
	// Executed straight into the file: the page is mostly its figures.
	return fsutil.WriteAtomic(filepath.Join(dir, ReportHTMLFile), func(w io.Writer) error {
		return reportTemplate.Execute(w, data)
	})
}

// imgTemplate is the <img> element of a figure as report.html had it
// inline; imgElement writes the same bytes.
var imgTemplate = template.Must(template.New("img").Parse(`<img src="{{.Src}}" alt="{{.Name}}">`))

// altTemplate escapes a string as html/template does in a quoted attribute.
var altTemplate = template.Must(template.New("alt").Parse(`<a title="{{.}}">`))

// imgElement returns imgTemplate executed on src and name. html/template
// escapes a data URI character by character (1 MB of base64 for a
// densities figure); a URI of only base64 and MIME characters keeps every
// character but + (written &#43;), so that case is a replacement.
func imgElement(src template.URL, name string) (template.HTML, error) {
	if strings.Trim(string(src), "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=:;,.-") != "" {
		var b strings.Builder
		err := imgTemplate.Execute(&b, htmlFigure{Src: src, Name: name})
		return template.HTML(b.String()), err
	}
	alt, err := altText(name)
	if err != nil {
		return "", err
	}
	return template.HTML(`<img src="` + strings.ReplaceAll(string(src), "+", "&#43;") + `" alt="` + alt + `">`), nil
}

// altText is name escaped as html/template escapes a quoted attribute.
func altText(name string) (string, error) {
	var b strings.Builder
	if err := altTemplate.Execute(&b, name); err != nil {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimPrefix(b.String(), `<a title="`), `">`), nil
}

// dataImgElement is imgElement of the data URI "data:" + mime +
// ";base64," + the base64 of data (mime of letters, digits and "/+-."),
// written in one pass: the URI's characters all lie in imgElement's
// alphabet, so it is its replacement of + by &#43;, without building,
// scanning and copying the megabyte of base64 of a densities figure three
// times over.
func dataImgElement(mime string, data []byte, name string) (template.HTML, error) {
	alt, err := altText(name)
	if err != nil {
		return "", err
	}
	enc := make([]byte, base64.StdEncoding.EncodedLen(len(data)))
	base64.StdEncoding.Encode(enc, data)
	var b strings.Builder
	b.Grow(len(enc) + 4*bytes.Count(enc, []byte("+")) + len(mime) + len(alt) + 64)
	b.WriteString(`<img src="data:` + strings.ReplaceAll(mime, "+", "&#43;") + `;base64,`)
	for len(enc) > 0 {
		i := bytes.IndexByte(enc, '+')
		if i < 0 {
			b.Write(enc)
			break
		}
		b.Write(enc[:i])
		b.WriteString("&#43;")
		enc = enc[i+1:]
	}
	b.WriteString(`" alt="` + alt + `">`)
	return template.HTML(b.String()), nil
}
