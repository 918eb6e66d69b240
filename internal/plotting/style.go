package plotting

import (
	"hash/fnv"
	"image/color"
	"math"
	"sort"

	"github.com/smrl-dev/smrl/internal/config"

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

// markers are the marker names of config.Look.
var markers = map[string]draw.GlyphDrawer{
	"circle": draw.CircleGlyph{}, "ring": draw.RingGlyph{}, "square": draw.SquareGlyph{}, "box": draw.BoxGlyph{},
	"triangle": draw.TriangleGlyph{}, "pyramid": draw.PyramidGlyph{}, "plus": draw.PlusGlyph{}, "cross": draw.CrossGlyph{},
}

// The styles of the agents come from their registrations (config.Look:
// the oracle in internal/agent/agent.go, the learners in their estimator's
// file), read from config's registry, so that the figures link no agent.
// The three agents of an estimator (sm, sm-ucb, sm-ps; lds…; mle…) have
// clearly different hues, since the density figures tell agents apart by
// colour alone (the figures with markers also give the -ucb and -ps
// variants their dash patterns). sm, lds and mle keep the Okabe–Ito
// colours of the paper's comparison. Every two registered colours are at
// least 30 apart in CIELAB ΔE, and 25 from the two action colours
// (tested).

// fallbackColors and fallbackGlyphs style agents without a registered Look.
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

// AgentStyle returns the fixed style of an agent: the Look its
// registration declares (oracle, sm, lds, mle and their -ucb/-ps
// variants); any other name gets a colour and marker chosen
// deterministically from a hash of the name, so it is the same in every
// figure and every run.
func AgentStyle(agent string) Style {
	if l, ok := config.AgentLook(agent); ok {
		if g, known := markers[l.Marker]; known {
			s := Style{Color: rgb(l.Color[0], l.Color[1], l.Color[2]), Glyph: g}
			for _, d := range l.Dashes {
				s.Dashes = append(s.Dashes, vg.Points(d))
			}
			return s
		}
	}
	h := fnv.New32a()
	h.Write([]byte(agent)) // hash.Hash never returns an error
	sum := h.Sum32()
	return Style{
		Color: fallbackColors[sum%uint32(len(fallbackColors))],
		Glyph: fallbackGlyphs[(sum/uint32(len(fallbackColors)))%uint32(len(fallbackGlyphs))],
	}
}

// agentRank is an agent's place in legends and tables: its Look's Rank,
// or after every ranked agent.
func agentRank(agent string) int {
	if l, ok := config.AgentLook(agent); ok && l.Rank > 0 {
		return l.Rank
	}
	return math.MaxInt
}

// sortAgents sorts agent names in legend order: the agents whose
// registration ranks them first, by rank, then the others alphabetically.
func sortAgents(agents []string) {
	sort.SliceStable(agents, func(i, j int) bool {
		ri, rj := agentRank(agents[i]), agentRank(agents[j])
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
