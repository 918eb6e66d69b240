package plotting

import (
	"image/color"
	"testing"
)

func TestToCP1252(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain ascii", "plain ascii"},
		{"P(·|s, a=−1)", "P(\xb7|s, a=\x961)"},
		{"±1.96·sd/√R", "\xb11.96\xb7sd/sqrt R"},
		{"‖Ŵ − W₀‖", "||W^ \x96 W0||"},
		{"€ – —", "\x80 \x96 \x97"},
		{"日本", "??"},
	}
	for _, tt := range tests {
		if got := toCP1252(tt.in); got != tt.want {
			t.Errorf("toCP1252(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStraightColor(t *testing.T) {
	tests := []struct {
		in   color.Color
		want [4]uint32
	}{
		{color.NRGBA{R: 148, G: 103, B: 189, A: 77}, [4]uint32{148 * 0x101, 103 * 0x101, 189 * 0x101, 77 * 0x101}},
		{color.NRGBA{R: 255, A: 51}, [4]uint32{0xffff, 0, 0, 51 * 0x101}},
	}
	for _, tt := range tests {
		n := color.NRGBAModel.Convert(tt.in).(color.NRGBA)
		r, g, b, a := straightColor(n).RGBA()
		if got := [4]uint32{r, g, b, a}; got != tt.want {
			t.Errorf("straightColor(%v).RGBA() = %v, want %v", tt.in, got, tt.want)
		}
	}
}
