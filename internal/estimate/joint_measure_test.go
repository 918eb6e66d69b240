//go:build unix

package estimate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// cpuNow is the process's CPU time (user + system, every thread).
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestJointScalingMeasurement is the measurement of docs/joint-families.md:
// on coupled-sin with κ = 0.5 at d = 2, 4, 8, 16, 32
// (examples/joint/coupled-dD.yaml), for n = 10³ and 10⁴ transitions drawn
// from the true environment (2 data sets each, streams (n, repeat)), the
// error |Ŵ − W0|_F of sm, lds and mle and the process CPU time of each
// fit alone (not of drawing the data). SMRL_JOINT_DIMS and SMRL_JOINT_N
// (comma-separated) choose other points, SMRL_JOINT_METHODS the methods,
// SMRL_JOINT_REPEATS the data sets per point.
// It prints a Markdown table; make reproduce runs it (SMRL_REPRODUCE=1).
func TestJointScalingMeasurement(t *testing.T) {
	if os.Getenv("SMRL_REPRODUCE") == "" {
		t.Skip("set SMRL_REPRODUCE=1 (make reproduce)")
	}
	ints := func(key, def string) []int {
		var out []int
		for _, f := range strings.Split(cmpOr(os.Getenv(key), def), ",") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			out = append(out, v)
		}
		return out
	}
	dims, sizes := ints("SMRL_JOINT_DIMS", "2,4,8,16,32"), ints("SMRL_JOINT_N", "1000,10000")
	methods := strings.Split(cmpOr(os.Getenv("SMRL_JOINT_METHODS"), "sm,lds,mle"), ",")
	repeats := ints("SMRL_JOINT_REPEATS", "2")[0]
	var b strings.Builder
	fmt.Fprintf(&b, "| d | n | method | mean abs(Ŵ − W0)_F | mean CPU of the fit (s) |\n| ---: | ---: | --- | ---: | ---: |\n")
	for _, d := range dims {
		c := testutil.LoadConfig(t, fmt.Sprintf("../../examples/joint/coupled-d%d.yaml", d))
		mdp, err := env.New(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range sizes {
			errSum, cpuSum, failed := map[string]float64{}, map[string]float64{}, map[string]string{}
			for r := range repeats {
				data := Draw(mdp, n, rand.New(rand.NewPCG(uint64(n), uint64(r))))
				phi := Features(mdp, data)
				for _, m := range methods {
					if failed[m] != "" {
						continue
					}
					t0 := cpuNow()
					w, err := Fit(m, mdp, phi, data, c.Lambda)
					dt := cpuNow() - t0
					if err != nil {
						failed[m] = err.Error()
						continue
					}
					e := math.NaN()
					if len(w) == len(mdp.Model.W0) {
						e = Frobenius(w, mdp.Model.W0)
					}
					errSum[m] += e / float64(repeats)
					cpuSum[m] += dt.Seconds() / float64(repeats)
				}
			}
			for _, m := range methods {
				row := fmt.Sprintf("| %d | %d | %s | %.4f | %.3g |", d, n, m, errSum[m], cpuSum[m])
				if failed[m] != "" {
					row = fmt.Sprintf("| %d | %d | %s | failed: %s | |", d, n, m, failed[m])
				}
				b.WriteString(row + "\n")
				t.Log(row) // as it comes: the large points take long
			}
		}
	}
	t.Log("\n" + b.String())
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
