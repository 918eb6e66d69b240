package plotting

import (
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cielab converts an sRGB colour to CIELAB (D65), the textbook formulas.
func cielab(c color.RGBA) (l, a, b float64) {
	lin := func(u uint8) float64 {
		x := float64(u) / 255
		if x > 0.04045 {
			return math.Pow((x+0.055)/1.055, 2.4)
		}
		return x / 12.92
	}
	r, g, bl := lin(c.R), lin(c.G), lin(c.B)
	x := (0.4124*r + 0.3576*g + 0.1805*bl) / 0.95047
	y := 0.2126*r + 0.7152*g + 0.0722*bl
	z := (0.0193*r + 0.1192*g + 0.9505*bl) / 1.08883
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	return 116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))
}

func deltaE(p, q color.RGBA) float64 {
	l1, a1, b1 := cielab(p)
	l2, a2, b2 := cielab(q)
	return math.Sqrt((l1-l2)*(l1-l2) + (a1-a2)*(a1-a2) + (b1-b2)*(b1-b2))
}

// Every two agents are told apart by colour: the exploration figures
// (sm, sm-ucb, sm-ps) used three similar blues (ΔE 26 between sm and
// sm-ucb), and lds-ucb's orange nearly matched the a = −1 gold (ΔE 16).
func TestAgentColoursDistinct(t *testing.T) {
	for i, a := range agentOrder {
		for _, b := range agentOrder[i+1:] {
			if d := deltaE(AgentStyle(a).Color, AgentStyle(b).Color); d < 30 {
				t.Errorf("%s and %s: ΔE = %.1f, want >= 30", a, b, d)
			}
		}
		for name, c := range map[string]color.RGBA{"a = +1": plusColor, "a = −1": minusColor} {
			if d := deltaE(AgentStyle(a).Color, c); d < 25 {
				t.Errorf("%s and the %s colour: ΔE = %.1f, want >= 25", a, name, d)
			}
		}
	}
}

// The log–log fit lines are drawn before (under) every data curve, with
// no halo, so that they never hide the data; they are dotted in the
// agent's colour, unlike the grey dashed √k guide; a falling regret curve
// gets the label "slope 0, falling" and no fit line.
func TestRegretFitLinesUnderDataAndFallingCurves(t *testing.T) {
	const episodes = "agent,seed,episode,reward,cum_reward,regret,cum_regret,plus_count,w_error,w_0_0\n" +
		"sm,0,1,1,1,,,5,0.5,1\n"
	reg := map[string]func(float64) float64{
		"oracle": func(float64) float64 { return 0 },
		"sm":     func(k float64) float64 { return 3 * math.Sqrt(k) },
		"lds":    func(k float64) float64 { return 2 * k },
		"mle":    func(k float64) float64 { return 100 / k }, // falls throughout
	}
	dir := writeResults(t, episodes, regretSummary(t, 50, reg, []string{"oracle", "sm", "lds", "mle"}))
	if _, err := RunFigures(dir, filepath.Join(dir, "plots"), nil, Options{Format: "svg"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "plots", FigRegretLogLog+".svg"))
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	firstData, lastFit := len(svg), -1
	for _, a := range []string{"sm", "lds", "mle"} {
		hex := strings.ToUpper(strings.TrimPrefix(hexColor(AgentStyle(a).Color), "#"))
		data := strings.Index(svg, "stroke:#"+hex+";stroke-width:1.8")
		fit := strings.Index(svg, "stroke:#"+hex+";stroke-width:2;stroke-dasharray:1,3")
		if data < 0 {
			t.Fatalf("no data curve of %s", a)
		}
		firstData = min(firstData, data)
		if a == "mle" {
			if fit >= 0 {
				t.Error("a falling curve got a fit line")
			}
			continue
		}
		if fit < 0 {
			t.Fatalf("no dotted fit line of %s", a)
		}
		lastFit = max(lastFit, fit)
	}
	if lastFit > firstData {
		t.Error("a fit line is drawn after (over) a data curve")
	}
	if strings.Contains(svg, "stroke:#FFFFFF;stroke-width:4") {
		t.Error("a white halo is drawn")
	}
	if !strings.Contains(svg, "stroke-dasharray:6,4") {
		t.Error("no long-dashed √k guide")
	}
	for _, label := range []string{"sm (slope 0.50)", "lds (slope 1.00)", "mle (slope 0, falling)"} {
		if !strings.Contains(svg, label) {
			t.Errorf("figure lacks %q", label)
		}
	}
	if strings.Contains(svg, "slope -") || strings.Contains(svg, "slope −") {
		t.Error("a negative slope is printed")
	}
}

func hexColor(c color.RGBA) string {
	const digits = "0123456789ABCDEF"
	out := []byte{'#'}
	for _, v := range []uint8{c.R, c.G, c.B} {
		out = append(out, digits[v>>4], digits[v&15])
	}
	return string(out)
}
