package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/fsutil"
)

// WriteEpisodes writes episodes.csv content with the W columns in it (the
// layout of format version 1, and of version 2 at most WColumnsMax
// entries without stats.save_w).
func WriteEpisodes(w io.Writer, rows []Row, dpsi, dphi int) error {
	return WriteEpisodesLayout(w, rows, Layout{DPsi: dpsi, DPhi: dphi})
}

// WriteEpisodesLayout writes episodes.csv content in layout l: with
// l.SeparateW without the w_i_j and se_i_j columns, which WriteW then
// writes to w.csv.
func WriteEpisodesLayout(w io.Writer, rows []Row, l Layout) error {
	cw := csv.NewWriter(w)
	dpsi, dphi := l.DPsi, l.DPhi
	if l.SeparateW {
		dpsi, dphi = 0, 0
	}
	se := !l.SeparateW && slices.ContainsFunc(rows, func(r Row) bool { return r.SE != nil })
	lambda := slices.ContainsFunc(rows, func(r Row) bool { return r.Lambda != 0 })
	diag, nact := trailing(rows)
	if err := cw.Write(append(EpisodesHeader(dpsi, dphi, se, lambda), TrailingHeader(diag, nact)...)); err != nil {
		return err
	}
	rec := make([]string, 0, 11+dpsi*dphi)
	for _, r := range rows {
		rec = append(rec[:0], r.Agent, strconv.Itoa(r.Seed), strconv.Itoa(r.Episode), num(r.Reward), strconv.Itoa(r.Steps),
			num(r.CumReward), num(r.Regret), num(r.CumRegret), strconv.Itoa(r.PlusCount), num(r.WError), num(r.Beta), num(r.Accept))
		if !l.SeparateW {
			rec = appendW(rec, r, dpsi*dphi, se)
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

// appendW appends to rec the n cells of r's W and, with se, the n cells
// of its standard errors, empty past the agent's own.
func appendW(rec []string, r Row, n int, se bool) []string {
	for _, v := range r.W {
		rec = append(rec, num(v))
	}
	for range n - len(r.W) {
		rec = append(rec, "")
	}
	if se {
		for _, v := range r.SE {
			rec = append(rec, num(v))
		}
		for range n - len(r.SE) {
			rec = append(rec, "")
		}
	}
	return rec
}

// WriteW writes w.csv content: a row per row of episodes.csv, in the same
// order, with its agent, seed and episode and the columns w_i_j (and with
// stats.save_se se_i_j) of l's shape, as episodes.csv holds them in
// format version 1. An agent that fits nothing (the oracle) has no rows.
func WriteW(w io.Writer, rows []Row, l Layout) error {
	cw := csv.NewWriter(w)
	se := slices.ContainsFunc(rows, func(r Row) bool { return r.SE != nil })
	head := append([]string{"agent", "seed", "episode"}, EpisodesHeader(l.DPsi, l.DPhi, se, false)[len(EpisodesHeader(0, 0, false, false)):]...)
	if err := cw.Write(head); err != nil {
		return err
	}
	rec := make([]string, 0, len(head))
	for _, r := range rows {
		if r.W == nil {
			continue
		}
		rec = appendW(append(rec[:0], r.Agent, strconv.Itoa(r.Seed), strconv.Itoa(r.Episode)), r, l.DPsi*l.DPhi, se)
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
	// FormatVersion is the layout of the directory's files
	// (FormatVersion); absent in directories of earlier versions: 1.
	FormatVersion int `json:"format_version,omitempty"`
}

// Files names the files of a results directory.
const (
	EpisodesFile = "episodes.csv"
	SummaryFile  = "summary.csv"
	ConfigFile   = "config.yaml"
	MetadataFile = "metadata.json"
	// WFile holds Ŵ per episode when it does not stay in episodes.csv
	// (Layout.SeparateW).
	WFile = "w.csv"
)

// FormatVersion is the layout of the results files smrl writes, recorded
// as metadata.json's format_version (a directory without one is version
// 1):
//
//	1  Ŵ (w_i_j) and its standard errors (se_i_j) in episodes.csv always
//	2  in episodes.csv up to WColumnsMax entries d_ψ·d_φ, else (or with
//	   stats.save_w) in w.csv; every other column unchanged
//
// Readers take every version up to FormatVersion and refuse a later one.
const FormatVersion = 2

// WColumnsMax is the most entries of Ŵ (d_ψ·d_φ) episodes.csv holds per
// row in format version 2: a larger Ŵ (a D = 2000 feature model has
// thousands) goes to w.csv, so that episodes.csv stays kilobytes per
// episode.
const WColumnsMax = 64

// Layout is where a results directory's W columns are: their shape and
// whether they are in w.csv rather than episodes.csv.
type Layout struct {
	DPsi, DPhi int
	SeparateW  bool
}

// NewLayout is the layout of format version version (0: FormatVersion)
// for W of d_psi × d_phi, with stats.save_w saveW.
func NewLayout(version, dpsi, dphi int, saveW bool) Layout {
	if version == 0 {
		version = FormatVersion
	}
	return Layout{DPsi: dpsi, DPhi: dphi, SeparateW: version >= 2 && (saveW || dpsi*dphi > WColumnsMax)}
}

// ReadMetadata reads the metadata.json of the results directory dir: nil
// and no error when there is none. A metadata.json that is not JSON, or a
// directory in its place, is invalid input naming the path.
func ReadMetadata(dir string) (*Metadata, error) {
	path := filepath.Join(dir, MetadataFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return nil, errs.Invalid(fmt.Errorf("%s is a directory, not the metadata file smrl writes there", path))
		}
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	meta := &Metadata{}
	if err := json.Unmarshal(b, meta); err != nil {
		return nil, errs.Invalid(fmt.Errorf("reading %s: %w", path, err))
	}
	return meta, nil
}

// ReadFormatVersion returns the format version of the results directory
// dir from its metadata.json: 1 when it has none or the file lacks the
// field (written by an earlier smrl; smrl never writes 0, omitted too). A version later than this smrl's
// FormatVersion, or a metadata.json that is not JSON, is invalid input.
func ReadFormatVersion(dir string) (int, error) {
	meta, err := ReadMetadata(dir)
	switch {
	case err != nil:
		return 0, err
	case meta == nil || meta.FormatVersion == 0:
		return 1, nil
	case meta.FormatVersion < 1 || meta.FormatVersion > FormatVersion:
		return 0, errs.Invalid(fmt.Errorf("%s: format_version %d: this smrl reads versions 1 to %d (a later smrl wrote it?)", filepath.Join(dir, MetadataFile), meta.FormatVersion, FormatVersion))
	}
	return meta.FormatVersion, nil
}

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
// into dir (which must exist), each atomically, in layout l (format
// version FormatVersion, which meta records): with l.SeparateW also w.csv,
// else any w.csv an earlier run left is removed. sums is Summarise(rows, H).
func WriteDir(dir string, rows []Row, sums []Summary, l Layout, configYAML []byte, meta *Metadata) error {
	meta.FormatVersion = FormatVersion
	steps := []fsutil.File{
		{Name: ConfigFile, Write: func(w io.Writer) error { _, err := w.Write(configYAML); return err }},
		{Name: EpisodesFile, Write: func(w io.Writer) error { return WriteEpisodesLayout(w, rows, l) }},
		{Name: SummaryFile, Write: func(w io.Writer) error { return WriteSummary(w, sums) }},
		{Name: MetadataFile, Write: meta.write},
	}
	if l.SeparateW {
		steps = slices.Insert(steps, 2, fsutil.File{Name: WFile, Write: func(w io.Writer) error { return WriteW(w, rows, l) }})
	} else if err := os.Remove(filepath.Join(dir, WFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// config.yaml holds these bytes already when the run wrote its
	// snapshot at the start (experiment's openRun): not written again.
	if old, err := os.ReadFile(filepath.Join(dir, ConfigFile)); err == nil && bytes.Equal(old, configYAML) {
		steps = steps[1:]
	}
	// Each file synced, the directory once.
	return fsutil.WriteFilesAtomic(dir, steps)
}
