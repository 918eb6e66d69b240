package results

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/smrl-dev/smrl/internal/fsutil"
)

// WriteEpisodes writes episodes.csv content.
func WriteEpisodes(w io.Writer, rows []Row, dpsi, dphi int) error {
	cw := csv.NewWriter(w)
	se := slices.ContainsFunc(rows, func(r Row) bool { return r.SE != nil })
	lambda := slices.ContainsFunc(rows, func(r Row) bool { return r.Lambda != 0 })
	diag, nact := trailing(rows)
	if err := cw.Write(append(EpisodesHeader(dpsi, dphi, se, lambda), TrailingHeader(diag, nact)...)); err != nil {
		return err
	}
	rec := make([]string, 0, 11+dpsi*dphi)
	for _, r := range rows {
		rec = append(rec[:0], r.Agent, strconv.Itoa(r.Seed), strconv.Itoa(r.Episode), num(r.Reward), strconv.Itoa(r.Steps),
			num(r.CumReward), num(r.Regret), num(r.CumRegret), strconv.Itoa(r.PlusCount), num(r.WError), num(r.Beta), num(r.Accept))
		for _, v := range r.W {
			rec = append(rec, num(v))
		}
		for range dpsi*dphi - len(r.W) {
			rec = append(rec, "")
		}
		if se {
			for _, v := range r.SE {
				rec = append(rec, num(v))
			}
			for range dpsi*dphi - len(r.SE) {
				rec = append(rec, "")
			}
		}
		if lambda {
			l := math.NaN() // an agent that does not cross-validate: empty
			if r.Lambda != 0 {
				l = r.Lambda
			}
			rec = append(rec, num(l))
		}
		if d := r.Diag; diag && d != nil {
			rec = append(rec, num(d.Cond), num(d.MinEigN), num(d.WStep))
		} else if diag {
			rec = append(rec, "", "", "")
		}
		for i := range nact {
			c := "" // an agent without counts (none in one run)
			if i < len(r.Actions) {
				c = strconv.Itoa(r.Actions[i])
			}
			rec = append(rec, c)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteSummary writes summary.csv content.
func WriteSummary(w io.Writer, sums []Summary) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(SummaryHeader); err != nil {
		return err
	}
	for _, s := range sums {
		rec := []string{s.Agent, strconv.Itoa(s.Episode), strconv.Itoa(s.Seeds), num(s.Reward.Mean), num(s.Reward.Lo), num(s.Reward.Hi)}
		for _, st := range []Stat{s.Steps, s.CumReward, s.CumRegret, s.PlusCount} {
			rec = append(rec, num(st.Mean), num(st.Lo), num(st.Hi))
		}
		rec = append(rec, num(s.FinalReturn.Mean), num(s.FinalReturn.Lo), num(s.FinalReturn.Hi), num(s.FirstFullMedian), strconv.Itoa(s.FullSeeds),
			num(s.WErrorMean), num(s.BetaMean), num(s.RegretSlope))
		for _, st := range []Stat{s.EpisodeReturn, s.EpisodeLength} {
			rec = append(rec, num(st.Mean), num(st.Lo), num(st.Hi))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Metadata is metadata.json: how and when a results directory was made.
// It is the one output that differs between identical runs.
type Metadata struct {
	Version     string   `json:"smrl_version"`
	GoVersion   string   `json:"go_version"`
	GitCommit   string   `json:"git_commit,omitempty"`
	CommandLine []string `json:"command_line"`
	// ConfigDescription is the leading comment of the config file the run
	// was started from (config.Description), for the report.
	ConfigDescription string    `json:"config_description,omitempty"`
	Start             time.Time `json:"start"`
	End               time.Time `json:"end"`
	WallSeconds       float64   `json:"wall_seconds"`
	Workers           int       `json:"workers"`
	Trials            int       `json:"trials"`
	Shard             string    `json:"shard,omitempty"`
	Resumed           bool      `json:"resumed,omitempty"`
	MergedFrom        []string  `json:"merged_from,omitempty"`
	// Running is true in the copy written as the run starts (its End is
	// then that moment) and absent once its files are written: smrl watch
	// stops when it goes.
	Running bool `json:"running,omitempty"`
}

// Files names the files of a results directory.
const (
	EpisodesFile = "episodes.csv"
	SummaryFile  = "summary.csv"
	ConfigFile   = "config.yaml"
	MetadataFile = "metadata.json"
)

// WDims returns the shape of the W columns for rows whose W have d_phi
// columns: the most rows any agent's W has.
func WDims(rows []Row, dphi int) (dpsi int) {
	for _, r := range rows {
		dpsi = max(dpsi, len(r.W)/dphi)
	}
	return dpsi
}

// WriteMetadata writes dir/metadata.json atomically; an unset End is set
// to now, with WallSeconds.
func WriteMetadata(dir string, meta *Metadata) error {
	if meta.End.IsZero() {
		meta.End = time.Now().UTC()
		meta.WallSeconds = meta.End.Sub(meta.Start).Seconds()
	}
	return fsutil.WriteAtomic(filepath.Join(dir, MetadataFile), meta.write)
}

// write writes meta as indented JSON.
func (meta *Metadata) write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(meta)
}

// WriteDir writes episodes.csv, summary.csv, config.yaml and metadata.json
// into dir (which must exist), each atomically. W columns are d_psi × d_phi;
// sums is Summarise(rows, H).
func WriteDir(dir string, rows []Row, sums []Summary, dpsi, dphi int, configYAML []byte, meta *Metadata) error {
	steps := []struct {
		name  string
		write func(io.Writer) error
	}{
		{ConfigFile, func(w io.Writer) error { _, err := w.Write(configYAML); return err }},
		{EpisodesFile, func(w io.Writer) error { return WriteEpisodes(w, rows, dpsi, dphi) }},
		{SummaryFile, func(w io.Writer) error { return WriteSummary(w, sums) }},
		{MetadataFile, meta.write},
	}
	for _, s := range steps {
		if err := fsutil.WriteAtomic(filepath.Join(dir, s.name), s.write); err != nil {
			return err
		}
	}
	return nil
}
