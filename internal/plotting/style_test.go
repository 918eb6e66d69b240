package plotting

import (
	"image/color"
	"math"
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
	agents := lookedAgents()
	for i, a := range agents {
		for _, b := range agents[i+1:] {
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

func hexColor(c color.RGBA) string {
	const digits = "0123456789ABCDEF"
	out := []byte{'#'}
	for _, v := range []uint8{c.R, c.G, c.B} {
		out = append(out, digits[v>>4], digits[v&15])
	}
	return string(out)
}
