package plotting

import (
	"hash/fnv"
	"image/color"
	"sort"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Style is the fixed drawing style of one agent: the same in every figure.
type Style struct {
	// Color is the agent's line, marker and band colour (bands use it
	// translucently).
	Color color.RGBA
	// Glyph is the agent's marker shape.
	Glyph draw.GlyphDrawer
	// Dashes is the agent's line dash pattern; nil is a solid line.
	Dashes []vg.Length
}

// Dash patterns for the -ucb and -ps variants of an agent family.
var (
	dashUCB = []vg.Length{vg.Points(6), vg.Points(3)}
	dashPS  = []vg.Length{vg.Points(2), vg.Points(2)}
)

// knownStyles fixes the style of every agent the runner knows. The three
// agents of a family (sm, sm-ucb, sm-ps; lds…; mle…) have clearly
// different hues, since the density figures tell agents apart by colour
// alone (the figures with markers also give the -ucb and -ps variants
// their family's dash patterns). sm, lds and mle keep the Okabe–Ito
// colours of the paper's comparison. Every two agent colours are at least 30 apart in CIELAB ΔE, and
// 25 from the two action colours (tested).
var knownStyles = map[string]Style{
	"oracle":  {Color: rgb(0, 0, 0), Glyph: draw.CrossGlyph{}},
	"sm":      {Color: rgb(0, 114, 178), Glyph: draw.CircleGlyph{}},
	"sm-ucb":  {Color: rgb(204, 80, 150), Glyph: draw.RingGlyph{}, Dashes: dashUCB},
	"sm-ps":   {Color: rgb(120, 160, 0), Glyph: draw.PlusGlyph{}, Dashes: dashPS},
	"lds":     {Color: rgb(213, 94, 0), Glyph: draw.SquareGlyph{}},
	"lds-ucb": {Color: rgb(190, 20, 50), Glyph: draw.BoxGlyph{}, Dashes: dashUCB},
	"lds-ps":  {Color: rgb(120, 120, 120), Glyph: draw.CrossGlyph{}, Dashes: dashPS},
	"mle":     {Color: rgb(0, 158, 115), Glyph: draw.TriangleGlyph{}},
	"mle-ucb": {Color: rgb(80, 80, 210), Glyph: draw.PyramidGlyph{}, Dashes: dashUCB},
	"mle-ps":  {Color: rgb(100, 60, 20), Glyph: draw.PlusGlyph{}, Dashes: dashPS},
}

// agentOrder is the order in which known agents appear in legends and
// tables; unknown agents follow in alphabetical order.
var agentOrder = []string{
	"oracle",
	"sm", "sm-ucb", "sm-ps",
	"lds", "lds-ucb", "lds-ps",
	"mle", "mle-ucb", "mle-ps",
}

// fallbackColors and fallbackGlyphs style agents missing from knownStyles.
var (
	fallbackColors = []color.RGBA{
		rgb(204, 121, 167), // reddish purple
		rgb(128, 60, 160),  // purple
		rgb(140, 86, 75),   // brown
		rgb(120, 120, 120), // grey
		rgb(0, 150, 170),   // cyan
		rgb(188, 150, 0),   // ochre
		rgb(230, 60, 140),  // pink
		rgb(70, 70, 200),   // indigo
	}
	fallbackGlyphs = []draw.GlyphDrawer{
		draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{},
		draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
		draw.PlusGlyph{}, draw.CrossGlyph{},
	}
)

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{R: r, G: g, B: b, A: 255} }

// AgentStyle returns the fixed style of an agent. Known agents (oracle, sm,
// lds, mle and their -ucb/-ps variants) have hand-picked styles; any other
// name gets a colour and marker chosen deterministically from a hash of
// the name, so it is the same in every figure and every run.
func AgentStyle(agent string) Style {
	if s, ok := knownStyles[agent]; ok {
		return s
	}
	h := fnv.New32a()
	h.Write([]byte(agent)) // hash.Hash never returns an error
	sum := h.Sum32()
	return Style{
		Color: fallbackColors[sum%uint32(len(fallbackColors))],
		Glyph: fallbackGlyphs[(sum/uint32(len(fallbackColors)))%uint32(len(fallbackGlyphs))],
	}
}

// sortAgents sorts agent names in legend order: known agents first in
// agentOrder, then the others alphabetically.
func sortAgents(agents []string) {
	rank := func(a string) int {
		for i, k := range agentOrder {
			if k == a {
				return i
			}
		}
		return len(agentOrder)
	}
	sort.SliceStable(agents, func(i, j int) bool {
		ri, rj := rank(agents[i]), rank(agents[j])
		if ri != rj {
			return ri < rj
		}
		return agents[i] < agents[j]
	})
}

// withAlpha returns c as a non-premultiplied colour with opacity a ∈ [0, 1].
func withAlpha(c color.RGBA, a float64) color.NRGBA {
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: uint8(a*255 + 0.5)}
}

// Band and fill opacities: the bands' fill is light (two overlapping
// bands blend to a tint, not grey) and their dotted edges tell them apart.
const (
	bandAlpha     = 0.12
	bandEdgeAlpha = 0.75
	fillAlpha     = 0.3
)

// Colours of the two actions in the mdp and densities figures, distinct
// from every known agent colour.
var (
	plusColor  = rgb(148, 103, 189) // a = +1: purple
	minusColor = rgb(200, 160, 30)  // a = −1: gold
	rewardGrey = rgb(90, 90, 90)
)
