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

// dataImgElement writes imgElement's bytes for the data URI of the same
// data: lengths of every remainder mod 3 (no, one and two = of padding),
// bytes whose base64 has + at the start and the end, and every MIME type
// report.html inlines.
func TestDataImgElementIsImgElement(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 3, 1000, 1001, 1002} {
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = byte(r.Uint32())
		}
		if n >= 3 {
			copy(raw, []byte{0xfb, 0xef, 0xbe}) // "++++"
		}
		for _, mime := range []string{"image/png", "image/svg+xml", "image/jpeg"} {
			for _, name := range []string{"cum_reward", `a+b "c" <d> & 'e'`} {
				want, err := imgElement(template.URL("data:"+mime+";base64,"+base64.StdEncoding.EncodeToString(raw)), name)
				if err != nil {
					t.Fatal(err)
				}
				got, err := dataImgElement(mime, raw, name)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("%d bytes, %s, %q: %.120q, imgElement %.120q", n, mime, name, got, want)
				}
			}
		}
	}
}
