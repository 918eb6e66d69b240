package experiment

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// A run of one long trial reports its episodes before the trial ends
// (it used to say 0 trials done and ETA 0 until the end).
func TestProgressReportsEpisodesWithinTrials(t *testing.T) {
	p := &progress{totalTrials: 2, totalEpisodes: 20}
	p.episodes.Store(5)
	var b bytes.Buffer
	stop := startProgress(p, slog.New(slog.NewTextHandler(&b, nil)), nil, time.Millisecond)
	time.Sleep(30 * time.Millisecond)
	stop()
	first, _, _ := strings.Cut(b.String(), "\n")
	for _, want := range []string{"trials_done=0", "trials=2", "episodes_done=5", "episodes=20", "eta_seconds=", "elapsed_seconds="} {
		if !strings.Contains(first, want) {
			t.Errorf("progress record %q lacks %s", first, want)
		}
	}
	// Before the first episode the ETA is unknown, not 0.
	b.Reset()
	p.episodes.Store(0)
	var bar bytes.Buffer
	stop = startProgress(p, nil, &bar, 0)
	time.Sleep(250 * time.Millisecond)
	stop()
	if !strings.Contains(bar.String(), "0/20 episodes") || !strings.Contains(bar.String(), "ETA ?") {
		t.Errorf("bar %q: want 0/20 episodes and an unknown ETA", bar.String())
	}
}
