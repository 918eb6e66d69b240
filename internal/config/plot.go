package config

// Plot configures the figures of run, compare, sweep and plot (issue 38):
// the moving window and the per-seed lines of the figures over episodes,
// the size of a figure and its text. They change no result: the files of a
// run are the same whatever they say.
type Plot struct {
	// Smooth, above 1, draws the per-episode figures as trailing moving
	// averages over Smooth episodes.
	Smooth int `mapstructure:"smooth" yaml:"smooth"`
	// SeedLines draws each seed's values as thin lines under the means.
	SeedLines bool `mapstructure:"seed_lines" yaml:"seed_lines"`
	// Width and Height are the size of a figure in pixels at 96 dpi
	// (svg and pdf: ×0.75 points); at the default 800 × 600 the densities
	// figure is 1200 × 800.
	Width  int `mapstructure:"width" yaml:"width"`
	Height int `mapstructure:"height" yaml:"height"`
	// FontSize is the size of the axis labels in points, with the title,
	// tick labels and legend in proportion (15, 11 and 12 at 13); the
	// figure's lines and markers scale with it.
	FontSize float64 `mapstructure:"font_size" yaml:"font_size"`
}

// DefaultPlot is the plot section of default.yaml.
var DefaultPlot = Plot{Width: 800, Height: 600, FontSize: 13}

// Bounds of the plot keys.
const (
	MaxSmooth                = 10_000
	MinFigurePx, MaxFigurePx = 100, 20_000
	MinFontSize, MaxFontSize = 6.0, 40.0
)

// validatePlot checks the plot: section.
func (c *Config) validatePlot(bad func(key, format string, args ...any)) {
	p := c.Plot
	if p.Smooth < 0 || p.Smooth > MaxSmooth {
		bad("plot.smooth", "must be a window of 0 to %d episodes, got %d", MaxSmooth, p.Smooth)
	}
	if p.Width < MinFigurePx || p.Width > MaxFigurePx {
		bad("plot.width", "must be in [%d, %d] pixels, got %d", MinFigurePx, MaxFigurePx, p.Width)
	}
	if p.Height < MinFigurePx || p.Height > MaxFigurePx {
		bad("plot.height", "must be in [%d, %d] pixels, got %d", MinFigurePx, MaxFigurePx, p.Height)
	}
	if !(p.FontSize >= MinFontSize && p.FontSize <= MaxFontSize) {
		bad("plot.font_size", "must be in [%g, %g] points, got %v", MinFontSize, MaxFontSize, p.FontSize)
	}
}
