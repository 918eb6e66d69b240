package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/plotting"
	"github.com/smrl-dev/smrl/internal/results"
)

// densities serves the model densities of a 1-D MDP to the figures.
type densities struct {
	mdp      *env.MDP
	ldsSigma float64
}

func (d *densities) curve(m *expfam.Model, s, a float64) plotting.Density {
	f, err := m.Density([]float64{s}, []float64{a})
	if err != nil {
		return func(float64) float64 { return 0 }
	}
	x := make([]float64, 1)
	return func(v float64) float64 { x[0] = v; return f(x) }
}

func (d *densities) True(s, a float64) plotting.Density { return d.curve(d.mdp.True, s, a) }

func (d *densities) Estimated(agent string, w []float64, s, a float64) (plotting.Density, bool) {
	if agent == "oracle" || w == nil {
		return nil, false
	}
	var dist expfam.Distribution = d.mdp.True.Dist
	if strings.HasPrefix(agent, "lds") {
		g, err := expfam.NewGaussian(1, d.ldsSigma)
		if err != nil {
			return nil, false
		}
		dist = g
	}
	m, err := expfam.NewModel(dist, d.mdp.True.Feat, w)
	if err != nil {
		return nil, false
	}
	return d.curve(m, s, a), true
}

func (d *densities) Reward(s float64) float64 { return d.mdp.Reward.At([]float64{s}) }

// Plot draws every figure of the results directory dir into outDir
// (dir/plots when empty) in the given format and writes dir/report.md. The
// MDP and density figures need the directory's config.yaml and a 1-D state
// and action; without them they are skipped.
func Plot(dir, outDir, format string) ([]string, error) {
	if outDir == "" {
		outDir = filepath.Join(dir, "plots")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, errs.Invalid(fmt.Errorf("results directory %s: not found", dir))
	}
	opt := plotting.Options{Format: format}
	var dens plotting.DensitySource
	cfgPath := filepath.Join(dir, results.ConfigFile)
	if _, err := os.Stat(cfgPath); err == nil {
		c, err := config.Load(config.Options{Path: cfgPath})
		if err != nil {
			return nil, err
		}
		m, err := env.New(c)
		if err != nil {
			return nil, errs.Invalid(fmt.Errorf("%s: %w", cfgPath, err))
		}
		opt.Horizon = c.Env.Horizon
		if m.StateDim() == 1 && m.ActionDim() == 1 {
			dens = &densities{mdp: m, ldsSigma: c.LDS.Sigma}
		}
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", outDir, err)
	}
	figs, err := plotting.RunFigures(dir, outDir, dens, opt)
	if err != nil {
		return figs, err
	}
	return figs, plotting.Report(dir, figs)
}
