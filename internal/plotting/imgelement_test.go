package plotting

import (
	"encoding/base64"
	"html/template"
	"math/rand/v2"
	"strings"
	"testing"
)

// imgElement writes the bytes html/template writes for the <img> element
// (imgTemplate), for data URIs of every base64 character and every MIME
// type report.html inlines, for names html/template escapes, and for a
// URI outside the fast path's alphabet.
func TestImgElementIsTemplate(t *testing.T) {
	raw := make([]byte, 3000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	b64 := base64.StdEncoding.EncodeToString(raw[:2999]) // ends in =
	if !strings.ContainsAny(b64, "+") || !strings.ContainsAny(b64, "/") || !strings.HasSuffix(b64, "=") {
		t.Fatalf("the sample lacks + / or =: %.40s", b64)
	}
	var srcs []template.URL
	for _, mime := range []string{"image/png", "image/svg+xml", "image/jpeg"} {
		srcs = append(srcs, template.URL("data:"+mime+";base64,"+b64))
	}
	srcs = append(srcs, `data:image/png;base64,a b"c<d>&e'f%g`, "javascript:x+y", "")
	for _, src := range srcs {
		for _, name := range []string{"cum_reward", `a+b "c" <d> & 'e'`, "sweep_regret_planner.tau"} {
			var want strings.Builder
			if err := imgTemplate.Execute(&want, htmlFigure{Src: src, Name: name}); err != nil {
				t.Fatal(err)
			}
			got, err := imgElement(src, name)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want.String() {
				t.Errorf("imgElement(%.40q, %q) = %.120q, html/template writes %.120q", src, name, got, want.String())
			}
		}
	}
}
