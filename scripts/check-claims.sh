#!/usr/bin/env bash
# check-claims.sh: run the commands whose time the documentation states and
# print the measured time beside the claimed one (make check-claims).
#
# Every claim is measured as a newcomer meets it: in a fresh clone of this
# repository (git clone of the working tree's HEAD) with an empty Go build
# cache, so the first command's time includes compiling smrl and its
# modules (downloads come from the module cache, GOMODCACHE, as on a
# machine that has fetched them once). The later commands use the smrl it
# built. Claims marked long (minutes of CPU) run only with CLAIMS_LONG=1;
# the benchmark figures (ns/op, µs per decision) only with CLAIMS_BENCH=1
# (CLAIMS_BENCHTIME, default 200ms, sets go test's -benchtime; -cpu 1 as the
# docs' figures, CLAIMS_BENCHCPU to change it). The claims
# that cannot be measured here (MuJoCo, a cluster, NumPy where /usr/bin/python3
# lacks it, comparisons with
# older commits) are listed last as "not re-measured", with the reason.
#
# Output, one line per claim:
#   FILE:LINE  claimed: TEXT  measured: W s wall, C s CPU  (COMMAND)
# It prints; it does not judge: a reader compares the two columns, and a
# claim that no longer holds is corrected in its file with the date.
#
# With --lines (make check-claims-lines) it runs nothing: it lists every
# claim's FILE:LINE, long and benchmark claims included, and fails when a
# claim's text is no longer found in its file (FILE:?), so that a doc edit
# that moves or rewords a claim shows up before the next full run.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/smrl-claims.XXXXXX")
trap 'rm -rf "$work"' EXIT
lines_only=0
if [[ ${1:-} == --lines ]]; then
	lines_only=1
	CLAIMS_LONG=1 CLAIMS_BENCH=1
fi
: >"$work/missing"
if ((!lines_only)); then
	git clone -q "$repo" "$work/smrl"
	export GOCACHE="$work/gocache"
	cd "$work/smrl"
fi

# measure FILE:LINE CLAIM COMMAND...: runs COMMAND in the clone, prints
# the claim and the measured wall and CPU (user + system, children
# included) seconds.
measure() {
	local where=$1 claim=$2
	shift 2
	if ((lines_only)); then
		echo "$where  $claim"
		return
	fi
	if ! /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err"; then
		echo "$where  claimed: $claim  FAILED: $(tail -3 "$work/err" | tr '\n' ' ')  ($*)"
		return
	fi
	local wall user sys rss
	read -r wall user sys rss <"$work/time"
	printf '%s  claimed: %s  measured: %s s wall, %s s CPU, %s MB peak  (%s)\n' "$where" "$claim" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf (u + s < 1 ? "%.2f" : "%.1f"), u + s }')" "$((rss / 1024))" "$*"
}

# measure_print FILE:LINE CLAIM COMMAND...: measure, then the command's
# own report (its standard output's last lines, indented), for the
# commands that time themselves, such as the NumPy references.
measure_print() {
	measure "$@"
	((lines_only)) || sed 's/^/    /' "$work/out" | tail -6
}

# episode_times FILE:LINE CLAIM DIR: each agent's mean episode_seconds in
# DIR/metrics.jsonl (the wall time of an episode, as the ETA uses it).
episode_times() {
	if ((lines_only)); then
		echo "$1  $2"
		return
	fi
	echo "$1  claimed: $2  measured: $(awk -F'"agent":"' 'NF > 1 { split($2, a, "\""); m = $0; sub(/.*"episode_seconds":/, "", m); sub(/[,}].*/, "", m); s[a[1]] += m; n[a[1]]++ } END { for (k in s) printf "%s %.0f ms, ", k, 1000 * s[k] / n[k] }' "$3/metrics.jsonl")per episode (metrics.jsonl of the run above)"
}

# heredoc FILE NAME: the text of FILE's first "cat > /tmp/NAME <<'EOF'"
# block, so that a doc's example config is measured as the doc shows it.
heredoc() {
	awk -v start="cat > /tmp/$2 <<'EOF'" '$0 == start { f = 1; next } f && /^EOF$/ { exit } f' "$1"
}

# measure_test FILE:LINE CLAIM PKG REGEX: the CPU time of go test's run of
# the tests matching REGEX in PKG, compile excluded (the test binary is
# built first, untimed), as the docs' "(N s)" after a go test command means.
measure_test() {
	local where=$1 claim=$2 pkg=$3 re=$4 bin
	if ((lines_only)); then
		echo "$where  $claim"
		return
	fi
	bin="$work/test-$(echo "$pkg$re" | tr -c 'A-Za-z0-9' _)"
	if ! go test -c -o "$bin" "$pkg" >/dev/null 2>"$work/err"; then
		echo "$where  claimed: $claim  FAILED to build: $(tail -3 "$work/err" | tr '\n' ' ')  (go test $pkg)"
		return
	fi
	(cd "$pkg" && measure "$where" "$claim" "$bin" -test.count=1 -test.run "$re") |
		sed "s|(\S*/test-\S* -test.count=1 -test.run \(.*\))\$|(go test -count=1 -run \1 $pkg, compile excluded)|"
	# A renamed test would otherwise pass in no time, unnoticed.
	if grep -qs 'no tests to run' "$work/out" "$work/err"; then
		echo "$where  FAILED: no test of $pkg matches $re"
	fi
}

# measure_bin FILE:LINE CLAIM PKG ARGS...: the CPU time of PKG's test
# binary run with ARGS (such as -test.bench X -test.benchtime 1x), built
# first, untimed, as the docs that time a test binary do.
measure_bin() {
	local where=$1 claim=$2 pkg=$3 bin
	shift 3
	if ((lines_only)); then
		echo "$where  $claim"
		return
	fi
	bin="$work/bin-$(echo "$pkg" | tr -c 'A-Za-z0-9' _)"
	if [[ ! -x $bin ]] && ! go test -c -o "$bin" "$pkg" >/dev/null 2>"$work/err"; then
		echo "$where  claimed: $claim  FAILED to build: $(tail -3 "$work/err" | tr '\n' ' ')  (go test $pkg)"
		return
	fi
	(cd "$pkg" && measure "$where" "$claim" "$bin" -test.run '^$' "$@") |
		sed "s|(\S*/bin-\S* |(go test $pkg, compile excluded: |"
}

# bench FILE:LINE CLAIM PKG REGEX [BENCHTIME]: runs the benchmarks matching
# REGEX in PKG and prints each one's figures (ns/op, allocs/op and its own
# metrics, such as µs/decision or ns/row) beside the claim. With -cpu 1
# (CLAIMS_BENCHCPU), as the docs' figures were taken. The benchmarks whose
# model samples from a lazily built table (the paper's family) get
# BENCHTIME ${CLAIMS_BENCHTIME_WARM:-1s} at least: in a short run the rows
# built in the first iterations dominate (paper-1d's 80 ns transition
# reads 1.5 ms at 100ms).
bench() {
	local where=$1 claim=$2 pkg=$3 re=$4 benchtime=${5:-${CLAIMS_BENCHTIME:-200ms}} out
	if ((lines_only)); then
		echo "$where  $claim"
		return
	fi
	if ! out=$(go test -run '^$' -bench "$re" -benchmem -benchtime "$benchtime" -count 1 -cpu "${CLAIMS_BENCHCPU:-1}" "$pkg" 2>&1); then
		echo "$where  claimed: $claim  FAILED: $(echo "$out" | tail -3 | tr '\n' ' ')  (go test -bench '$re' $pkg)"
		return
	fi
	echo "$where  claimed: $claim  measured (go test -bench '$re' $pkg):"
	echo "$out" | awk '/^Benchmark/ { line = "    " $1 " "; for (i = 3; i < NF; i += 2) if ($(i+1) != "B/op" && !($(i+1) == "ns/op" && $i == 0)) line = line " " $i " " $(i+1); print line }'
}

# skip FILE:LINE CLAIM REASON: a claim this script does not re-measure.
skip() {
	if ((lines_only)); then
		echo "$1  $2  (not re-measured)"
		return
	fi
	echo "$1  claimed: $2  not re-measured: $3"
}

# again FILE:LINE CLAIM: the last measurement, for another claim of it.
again() {
	if ((lines_only)); then
		echo "$1  $2  (as above)"
		return
	fi
	echo "$1  claimed: $2  measured: (as above)"
}

# line FILE TEXT: FILE:N of the first line of FILE holding TEXT (FILE:? when
# none does: the claim moved, and this list wants updating).
line() {
	local n
	n=$(grep -n -m1 -F -- "$2" "$repo/$1" | cut -d: -f1 || true)
	if [[ -z $n ]]; then
		echo "$1: no line holds \"$2\"" >>"$work/missing"
	fi
	echo "$1:${n:-?}"
}

if ((lines_only)); then
	echo "check-claims --lines: the claims and where they are"
else
	echo "check-claims: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
fi

# README's first command, compile included (empty build cache).
measure "$(line README.md 'compile included')" "101 s of CPU with an empty build cache, compile included" \
	go run ./cmd/smrl compare -q
# The same with the modules (and the standard library) already in the
# build cache but not smrl: a second empty cache, filled with smrl's
# dependencies first, untimed.
if ((!lines_only)); then
	go list -deps ./cmd/smrl | grep -v '^github.com/smrl-dev/smrl' | GOCACHE="$work/gocache-deps" xargs go build 2>"$work/err" ||
		echo "(building the dependencies into a second cache failed: $(tail -1 "$work/err"))"
fi
GOCACHE="$work/gocache-deps" measure "$(line README.md '14 s of CPU when the build cache already held the modules')" "14 s of CPU with the modules already in the build cache, compile of smrl included" \
	go run ./cmd/smrl compare -q --out results/claims-compare-deps
((lines_only)) || go build -o "$work/smrl-bin" ./cmd/smrl
smrl=$work/smrl-bin
measure "$(line README.md 'smrl compare` alone')" "smrl compare alone, compiled: 1.7 s of CPU" "$smrl" compare -q --out results/claims-compare
again "$(line README.md '568 s, 97 s and 11 s at a load average')" "wall times 568 s, 97 s and 11 s of the three commands above (load 20–35)"
again "$(line docs/performance.md '`smrl compare` with its figures and report')" "smrl compare with figures and report: 1.2–1.4 s of CPU (24 Nov)"
measure "$(line docs/performance.md '`smrl version` alone takes')" "smrl version alone: 20 ms" "$smrl" version
measure "$(line README.md 'version took 0.8 s')" "pendulum, 2 seeds × 3 episodes: 0.8 s of CPU" \
	"$smrl" run --config configs/pendulum.yaml --seeds 2 --episodes 3 --out results/claims-pendulum-short -q
measure "$(line README.md 'λ sweep (the λ sweep')" "the README's λ sweep (no time claimed)" \
	"$smrl" sweep --config configs/quick.yaml --agents sm,oracle --seeds 5 --set lambda=log:1e1:1e5:5 --out results/claims-lambda -q
measure "$(line README.md '15 points, 450 trials')" "the planner ablation sweep: 19 s of CPU, figures included" \
	"$smrl" sweep --config configs/ablation-tau-rollouts.yaml --out results/claims-ablation -q
again "$(line docs/performance.md '(15 points, 450 trials, 22 500 episodes)')" "8.4–9.4 s of wall time with figures (a quiet machine)"
again "$(line README.md '19 s of CPU, figures included (102 s of wall time')" "102 s of wall time at a load average of 33"
again "$(line docs/sweeps.md '15 points')" "the planner ablation sweep: 19 s of CPU with figures"
again "$(line docs/reproduction.md 'The sweep took')" "the planner ablation: 18.8 s of CPU, figures included"
measure "$(line docs/statistics.md 'used 1.326 s of CPU')" "compare --no-plots: 1.3 s of CPU" \
	"$smrl" compare --no-plots -q --out results/claims-compare-noplots

again "$(line docs/performance.md '`smrl compare --no-plots`, paper config, warm')" "0.74 s of CPU (0.72–0.76), 0.41 s of wall time (25 Nov)"
measure "$(line docs/statistics.md 'episodes: `smrl run --seeds 5 --episodes 50 --workers 1`')" "1.1 s of CPU (d = 2)" \
	"$smrl" run --seeds 5 --episodes 50 --workers 1 --no-plots -q --out results/claims-se-paper
measure "$(line docs/statistics.md '10 episodes) 0.8 s without')" "pendulum, sm, one seed, 10 episodes: 0.8 s of CPU without standard errors" \
	"$smrl" run --config configs/pendulum.yaml --set 'agents=[sm]' --seeds 1 --episodes 10 --workers 1 --no-plots -q --out results/claims-se-pendulum

# statistics.md's whole runs with and without `lambda: cv` (one run each).
for agent in lds lds-ps mle; do
	measure "$(line docs/statistics.md 'MDP with `--set agents=[lds] --seeds 5 --episodes 50 --workers 1` used')" "synthetic, $agent, 5 seeds × 50 episodes, λ = 1e-4: lds 0.24 s, lds-ps 0.19 s, mle 0.52 s of user CPU" \
		"$smrl" run --set "agents=[$agent]" --seeds 5 --episodes 50 --workers 1 --no-plots -q --out "results/claims-cv-$agent"
	measure "$(line docs/statistics.md 'MDP with `--set agents=[lds] --seeds 5 --episodes 50 --workers 1` used')" "the same with lambda: cv: lds 0.25 s, lds-ps 0.18 s, mle 1.26 s" \
		"$smrl" run --set "agents=[$agent]" --set lambda=cv --seeds 5 --episodes 50 --workers 1 --no-plots -q --out "results/claims-cv-$agent-cv"
done
measure "$(line docs/statistics.md '`--set agents=[lds] --seeds 1 --episodes 10` 0.16 s and 0.11 s')" "pendulum, lds, 1 seed × 10 episodes: 0.16 s (λ = 1e-4)" \
	"$smrl" run --config configs/pendulum.yaml --set 'agents=[lds]' --seeds 1 --episodes 10 --no-plots -q --out results/claims-cv-pendulum
measure "$(line docs/statistics.md '`--set agents=[lds] --seeds 1 --episodes 10` 0.16 s and 0.11 s')" "the same with lambda: cv: 0.11 s" \
	"$smrl" run --config configs/pendulum.yaml --set 'agents=[lds]' --set lambda=cv --seeds 1 --episodes 10 --no-plots -q --out results/claims-cv-pendulum-cv
measure "$(line docs/statistics.md '(`--set model.lds_features=model`) 0.65 s and 1.94 s')" "the same on the model's 200 rff features: 0.65 s (λ = 1e-4)" \
	"$smrl" run --config configs/pendulum.yaml --set 'agents=[lds]' --set model.lds_features=model --seeds 1 --episodes 10 --no-plots -q --out results/claims-cv-pendulum-rff
measure "$(line docs/statistics.md '(`--set model.lds_features=model`) 0.65 s and 1.94 s')" "the same with lambda: cv: 1.94 s" \
	"$smrl" run --config configs/pendulum.yaml --set 'agents=[lds]' --set model.lds_features=model --set lambda=cv --seeds 1 --episodes 10 --no-plots -q --out results/claims-cv-pendulum-rff-cv
# statistics.md's rff length by cross-validation (pendulum, n = 5000, sm, standard errors).
measure "$(line docs/statistics.md 'used 0.10 s of CPU, 0.55 s with `length: cv`')" "smrl estimate, pendulum, n = 5000, sm: 0.10 s of CPU (2026-11-28)" \
	"$smrl" estimate --config configs/pendulum.yaml --n 5000 --method sm
measure "$(line docs/statistics.md 'used 0.10 s of CPU, 0.55 s with `length: cv`')" "the same with length: cv (7 lengths): 0.55 s" \
	"$smrl" estimate --config configs/pendulum.yaml --n 5000 --method sm --set model.features.length=cv
measure "$(line docs/statistics.md '`lambda: cv` and 1.8 s with both')" "the same with lambda: cv: 0.25 s" \
	"$smrl" estimate --config configs/pendulum.yaml --n 5000 --method sm --lambda cv
measure "$(line docs/statistics.md '`lambda: cv` and 1.8 s with both')" "the same with both: 1.8 s" \
	"$smrl" estimate --config configs/pendulum.yaml --n 5000 --method sm --lambda cv --set model.features.length=cv

# expressions.md's gamma and quartic examples, the doc's own configs.
heredoc "$repo/docs/expressions.md" gamma.yaml >"$work/gamma.yaml"
heredoc "$repo/docs/expressions.md" quartic.yaml >"$work/quartic.yaml"
measure_print "$(line docs/expressions.md 'for sm in 1.2–1.6 ms (the `seconds` column')" "gamma, sm and lds on 2000 transitions: sm's fit 1.2–1.6 ms (its seconds column below; the line's time is the whole process)" \
	"$smrl" estimate --config "$work/gamma.yaml" --n 2000 --method sm,lds
measure_print "$(line docs/expressions.md 'from 2000 transitions in 2.6 ms')" "quartic, sm and lds on 2000 transitions: the whole command 0.49 s of CPU, sm's fit 2.6 ms (its seconds column below)" \
	"$smrl" estimate --config "$work/quartic.yaml" --n 2000 --method sm,lds
again "$(line docs/expressions.md 'drawing the 2000 transitions by exact inversion included')" "the draw, within the whole command: 0.49 s of CPU (3 s in an earlier session)"

# robust-sm.md's cost of the floor and of lambda: cv (the study, sm, sm-ps, mle, one worker).
awk '/^```yaml/ { f = 1; next } /^```/ { if (f) exit } f' "$repo/docs/robust-sm.md" >"$work/study.yaml"
measure "$(line docs/robust-sm.md 'sm-ps and mle and `--workers 1`, the CPU time was')" "the study, sm, sm-ps and mle: 4.08 s of CPU plain (sm.floor: 0)" \
	"$smrl" run --config "$work/study.yaml" --set 'agents=[sm,sm-ps,mle]' --set sm.floor=0 --workers 1 --no-plots -q --out results/claims-robust-plain
measure "$(line docs/robust-sm.md 'sm-ps and mle and `--workers 1`, the CPU time was')" "the same with the floor (the default): 4.16 s" \
	"$smrl" run --config "$work/study.yaml" --set 'agents=[sm,sm-ps,mle]' --workers 1 --no-plots -q --out results/claims-robust-floor
measure "$(line docs/robust-sm.md '6.53 s with `lambda: cv`')" "the same with lambda: cv (and sm.floor: 0): 6.53 s" \
	"$smrl" run --config "$work/study.yaml" --set 'agents=[sm,sm-ps,mle]' --set lambda=cv --set sm.floor=0 --workers 1 --no-plots -q --out results/claims-robust-cv

# commands.md's progress example and the per-agent episode times of its ETA.
measure "$(line docs/commands.md '94.8 episodes/s  elapsed 1s')" "smrl run --config configs/quick.yaml: 48 episodes, elapsed 1 s (94.8 episodes/s)" \
	"$smrl" run --config configs/quick.yaml -q --out results/claims-quick
measure "$(line docs/commands.md '(2.4 s for 0.7 s left;')" "pendulum, 2 seeds × 10 episodes, --workers 2 (no time claimed: the run of the ETA's example)" \
	"$smrl" run --config configs/pendulum.yaml --seeds 2 --episodes 10 --workers 2 -q --out results/claims-eta
episode_times "$(line docs/commands.md '75 ms, lds 12 ms and the oracle 8 ms')" "an sm episode 75 ms, lds 12 ms, the oracle 8 ms (pendulum)" results/claims-eta
again "$(line docs/performance.md 'configs/pendulum.yaml --seeds 2 --episodes 10` 1.86 / 1.82 s')" "the same run, figures included: 1.86 / 1.82 s of CPU (13:15–13:20 on 28 Nov)"
measure "$(line docs/performance.md '1.03 / 1.09 s CPU against main')" "smrl compare --no-plots: 1.03 / 1.09 s of CPU (28 Nov)" \
	"$smrl" compare --no-plots -q --out results/claims-compare-noplots-2
again "$(line docs/performance.md '341–359, fastest')" "smrl compare --no-plots timed by the caller: 347 ms median wall time (another day)"
measure "$(line docs/performance.md 'the same, cold cache (every table row built) / `--no-cache`')" "smrl compare --no-plots, --no-cache: 0.81–0.82 s wall, 1.4–1.5 s CPU (24 Nov)" \
	"$smrl" compare --no-plots --no-cache -q --out results/claims-compare-nocache
measure "$(line docs/performance.md 'the same, cold cache (every table row built) / `--no-cache`')" "smrl compare --no-plots, cold cache (every row built): 0.94–1.09 s wall, 1.6–1.9 s CPU, 83 MB (24 Nov)" \
	env SMRL_CACHE_DIR="$work/cold-cache" "$smrl" compare --no-plots -q --out results/claims-compare-cold
# reproduction.md's ablation without figures.
measure "$(line docs/reproduction.md '(2.9–3.4 s with')" "the planner ablation with --no-plots: 2.9–3.4 s of wall time (quiet machine)" \
	"$smrl" sweep --config configs/ablation-tau-rollouts.yaml --no-plots -q --out results/claims-ablation-noplots
again "$(line docs/performance.md '(15 points, 450 trials, 22 500 episodes)')" "5.8–5.9 s wall with --no-plots (24 Nov, quiet)"

# The NumPy references of performance.md and vector-kernels.md, with the
# smrl side of each (the benchmarks' side runs with CLAIMS_BENCH=1).
if ((lines_only)) || /usr/bin/python3 -c 'import numpy, scipy' 2>/dev/null; then
	measure_print "$(line docs/performance.md '`make bench-numpy`')" "NumPy's pendulum MPPI decision: 1.99–2.05 ms (25 Nov), 2.32–2.72 ms (25 Nov, 03 h)" \
		env OPENBLAS_NUM_THREADS=1 /usr/bin/python3 scripts/numpy-pendulum-decision.py
	again "$(line docs/vector-kernels.md 'NumPy 2.32–2.72 ms per decision')" "NumPy 2.32–2.72 ms per decision against smrl's 180–241 µs (BenchmarkDecision with CLAIMS_BENCH=1)"
	measure_print "$(line docs/performance.md 'against `scripts/numpy-refit.py`')" "NumPy/SciPy refit at D = 2000, d_s = 17: 174 / 163 / 124 ms CPU" \
		env OPENBLAS_NUM_THREADS=1 /usr/bin/python3 scripts/numpy-refit.py 2000 3
	measure "$(line docs/performance.md '`smrl estimate --se none`, Gaussian on 1024 rff')" "smrl estimate --se none, 1024 rff, n = 2·10⁴: 1.33 / 1.74 / 1.45 s CPU, 44–45 MB" \
		"$smrl" estimate --config scripts/scale-estimate.yaml --n 20000 --method sm --se none --format json
	measure_print "$(line docs/performance.md '`smrl estimate --se none`, Gaussian on 1024 rff')" "NumPy's estimate: 1.44 / 1.22 / 1.35 s CPU" \
		env OPENBLAS_NUM_THREADS=1 /usr/bin/python3 scripts/numpy-estimate.py --n 20000
	measure "$(line docs/performance.md 'the same with the sandwich standard errors (against')" "smrl estimate with standard errors: 4.51 / 5.73 / 4.91 s CPU" \
		"$smrl" estimate --config scripts/scale-estimate.yaml --n 20000 --method sm --format json
	measure_print "$(line docs/performance.md 'the same with the sandwich standard errors (against')" "NumPy's with standard errors: 3.27 / 3.41 / 3.39 s CPU" \
		env OPENBLAS_NUM_THREADS=1 /usr/bin/python3 scripts/numpy-estimate.py --n 20000 --se
else
	skip "$(line docs/performance.md '`make bench-numpy`')" "NumPy against smrl's decision, refit and estimate" "needs /usr/bin/python3 with NumPy and SciPy (make bench-numpy, make bench-scale)"
fi

# The floor program of performance.md, when its source is at hand (it is
# not part of this repository: shared/tools/limit beside the checkout).
floor=${CLAIMS_FLOOR:-}
for d in "$repo/../shared/tools/limit" "$repo/../../shared/tools/limit"; do
	[[ -z $floor && -f $d/main.go ]] && floor=$d
done
if ((lines_only)) || [[ -n $floor ]]; then
	((lines_only)) || (cd "$floor" && GOFLAGS=-mod=mod go build -o "$work/limit" .)
	measure "$(line docs/performance.md "The warm comparison was 8% above the floor program's wall time")" "the floor program: 0.96–1.64 s CPU on 2026-11-28 (smrl compare --no-plots 0.9–1.3 s); 0.38 s wall, 0.73 s CPU (25 Nov)" "$work/limit"
else
	skip "$(line docs/performance.md "The warm comparison was 8% above the floor program's wall time")" "the floor program's times" "its source, shared/tools/limit, is not beside this checkout (CLAIMS_FLOOR=DIR names it)"
fi

# The go test commands whose run time the docs state (compile excluded).
measure_test "$(line docs/control.md 'LQPlanners` (')" "0.1 s of CPU (2026-11-28)" ./internal/runner '^TestLQPlanners'
measure_test "$(line docs/cartpole.md 'CartPoleTieBreak` (')" "0.2 s of CPU (2026-11-28)" ./internal/runner '^TestCartPoleTieBreak$'
measure_test "$(line docs/mcmc.md 'go test ./internal/mcmc/` (under')" "under 1 s of CPU" ./internal/mcmc .
measure_test "$(line docs/weighted-sm.md '`TestWeightedSMConsistency`,')" "3.9–5.6 s of CPU (2026-11-28)" ./internal/estimator '^TestWeightedSMConsistency$'
measure_test "$(line docs/external.md 'Together they take about 3 s')" "about 3 s of CPU, env side (with the runner and cmd/smrl sides)" ./internal/env '^TestExternal'
measure_test "$(line docs/external.md 'Together they take about 3 s')" "about 3 s of CPU, runner side (with the env and cmd/smrl sides)" ./internal/runner '^TestWorldOfALiveEnvironment$'
measure_test "$(line docs/external.md 'Together they take about 3 s')" "about 3 s of CPU, cmd/smrl side, Python included (with the env and runner sides)" ./cmd/smrl '^TestExternal'

if [[ ${CLAIMS_LONG:-} == 1 ]]; then
	measure "$(line README.md '10 seeds × 50 episodes) takes')" "13–18 s of wall time and 25–35 s of CPU" \
		"$smrl" run --config configs/pendulum.yaml --out results/claims-pendulum -q
	again "$(line README.md '30 s or less in nine of them')" "30 s of CPU or less in nine of eleven rounds (25 Nov, 05 h)"
	measure "$(line docs/performance.md '(`GODEBUG=cpu.avx512f=off smrl run --config internal/runner/testdata/scale-lq17.yaml --seeds 2')" "the scale config with fma as an AVX2-only CPU runs it: 3.8–4.1 s of CPU against 10.6–11.7 s before rffPhiAVX2FMA (2026-11-29 04:33)" \
		env GODEBUG=cpu.avx512f=off "$smrl" run --config internal/runner/testdata/scale-lq17.yaml --seeds 2 --episodes 2 --set env.horizon=50 --set model.features.fma=true --workers 1 --out results/claims-avx2-fma -q
	again "$(line docs/continuous-control.md '`--workers 1` took 3.8–4.1 s of CPU')" "3.8–4.1 s of CPU as an AVX2-only CPU, 10.6–11.7 s with the Go loop, 4.1–4.2 s in the default arithmetic (2026-11-29 04:33)"
	measure "$(line docs/continuous-control.md 'of wall time and')" "14.8–17.0 s of wall time and 29.3–33.4 s of CPU, no figures" \
		"$smrl" run --config configs/pendulum.yaml --out results/claims-pendulum-nofig -q --no-plots
	again "$(line docs/performance.md '(3 agents × 10 seeds × 50 episodes, 1.4 · 10⁸ transitions)')" "14.8–15.9 s wall, 29.3–31.5 s CPU (25 Nov, first pass)"
	measure "$(line docs/performance.md '`smrl run --config configs/cartpole.yaml --seeds 5`')" "12.6–13.2 s wall, 23.4–24.5 s CPU" \
		"$smrl" run --config configs/cartpole.yaml --seeds 5 --out results/claims-cartpole -q
	measure "$(line docs/performance.md '`smrl run --config configs/acrobot.yaml`')" "25.6 s wall, 50.6 s CPU (25 Nov)" \
		"$smrl" run --config configs/acrobot.yaml --workers 2 --out results/claims-acrobot -q
	again "$(line docs/control.md 'takes 50.6 s of CPU')" "50.6 s of CPU, 25.6 s of wall time with --workers 2 (2026-11-25)"
	again "$(line docs/continuous-control.md '3 agents × 10 seeds take 51 s')" "51 s of CPU (26 s wall with --workers 2, 2026-11-25)"
	measure "$(line docs/expressions.md 'Measured (5 seeds × 50 episodes')" "8.8 s of wall time" \
		"$smrl" run --config configs/custom-family.yaml --out results/claims-custom-family -q
	# robust-sm.md's study (its config, the page's first yaml block, is $work/study.yaml above).
	measure "$(line docs/robust-sm.md 'Run with `smrl run --config study.yaml --no-plots` (about')" "about 10 s (with sm.floor: 0)" \
		"$smrl" run --config "$work/study.yaml" --set sm.floor=0 --no-plots -q --out results/claims-robust-study
	measure "$(line docs/optimism.md '(17.5 s against 3.8 s')" "sm-ucb with value: lookahead, 3.8 s (10 seeds × 50 episodes)" \
		"$smrl" run --config configs/exploration.yaml --set 'agents=[sm-ucb]' --no-plots -q --out results/claims-ucb-lookahead
	measure "$(line docs/optimism.md '(17.5 s against 3.8 s')" "sm-ucb with value: rollout, 17.5 s" \
		"$smrl" run --config configs/exploration.yaml --set 'agents=[sm-ucb]' --set confidence.value=rollout --no-plots -q --out results/claims-ucb-rollout
	measure "$(line docs/external.md 'takes about 2 minutes, nearly all')" "about 2 minutes; 129 s wall, 89 s CPU (2026-11-28)" \
		"$smrl" run --config configs/external-pendulum.yaml --no-plots -q --out results/claims-external
	again "$(line docs/external.md '129 s of wall time, 68 s user and 21 s system CPU')" "129 s of wall time, 68 s user and 21 s system CPU"
	measure "$(line docs/development.md 'took **81.5 s and 83.7 s of CPU**')" "81.5 and 83.7 s of CPU with a warm build cache (2026-11-28, quiet machine)" \
		go test -count=1 ./...
	again "$(line docs/development.md 'on a fresh clone with an empty Go build cache')" "255 s of CPU on a fresh clone, compile included (an earlier measurement)"
	again "$(line README.md 'The second command runs the test suite: 245 s of CPU')" "245 s of CPU on a fresh clone with an empty build cache, compile included (2026-11-28)"
	measure "$(line docs/development.md 'they take about')" "about 40 s of wall time and 80 s of CPU" \
		env SMRL_DOCS=1 go test -count=1 -run '^TestDocExamples$' ./cmd/smrl
	# expressions.md's mle fits of the gamma and quartic examples.
	measure "$(line docs/expressions.md '(mle: 0.38 in 27 s of CPU;')" "gamma, mle on 2000 transitions: 27 s of CPU (26.7 s on 2026-11-28)" \
		"$smrl" estimate --config "$work/gamma.yaml" --n 2000 --method mle
	measure "$(line docs/expressions.md '14–24 s of CPU (23.6 s that day)')" "quartic, mle on 2000 transitions: 14–24 s of CPU (23.6 s on 2026-11-28)" \
		"$smrl" estimate --config "$work/quartic.yaml" --n 2000 --method mle
	# performance.md's d_s = 8 case, cold (a fresh table cache) then warm.
	W='[[1,0,0,0,0,0,0,0,1],[0,1,0,0,0,0,0,0,1],[0,0,1,0,0,0,0,0,1],[0,0,0,1,0,0,0,0,1],[0,0,0,0,1,0,0,0,1],[0,0,0,0,0,1,0,0,1],[0,0,0,0,0,0,1,0,1],[0,0,0,0,0,0,0,1,1]]'
	C='[0.39269908169872414,0.39269908169872414,0.39269908169872414,0.39269908169872414,0.39269908169872414,0.39269908169872414,0.39269908169872414,0.39269908169872414]'
	measure "$(line docs/performance.md '| d_s = 8 cold, `smrl run` as above |')" "d_s = 8, cold: 25–40 s wall, 13.5–13.9 s CPU (24 Nov, load 12–16)" \
		env SMRL_CACHE_DIR="$work/ds8cache" "$smrl" run --config configs/synthetic.yaml --set env.family.dim=8 --set "env.w0=$W" --set "env.reward.centers=$C" --out results/claims-ds8-cold --no-plots -q
	again "$(line docs/performance.md 'custom-sin with d_s = 8 at λ = 1e-4 (sm, lds, oracle')" "cold 7.4–7.6 s wall, 11.9–12.1 s CPU (25 Nov, quiet)"
	again "$(line docs/performance.md 'On the quiet machine the cold run took 14–15 s wall')" "14–15 s wall on the quiet machine; about 6.5 s expected"
	measure "$(line docs/performance.md '| d_s = 8 warm (the cache the cold run wrote) |')" "d_s = 8, warm: 13 s wall, 4.5 s CPU (24 Nov); 1.43–1.46 s wall, 2.4–2.6 s CPU (25 Nov)" \
		env SMRL_CACHE_DIR="$work/ds8cache" "$smrl" run --config configs/synthetic.yaml --set env.family.dim=8 --set "env.w0=$W" --set "env.reward.centers=$C" --out results/claims-ds8-warm --no-plots -q
	measure "$(line docs/performance.md '--config configs/cartpole.yaml --seeds 2` 10.2 / 8.9 s')" "smrl run --config configs/cartpole.yaml --seeds 2: 10.2 / 8.9 s of CPU (28 Nov)" \
		"$smrl" run --config configs/cartpole.yaml --seeds 2 -q --out results/claims-cartpole-2
	measure "$(line docs/performance.md 'peak memory of `smrl estimate --se none` at n = 2·10⁴ / 2·10⁵')" "smrl estimate --se none at n = 2·10⁵: 58 MB peak, 14.7 s CPU" \
		"$smrl" estimate --config scripts/scale-estimate.yaml --n 200000 --method sm --se none --format json
	# joint-families.md's coupled runs.
	measure "$(line docs/joint-families.md 'against 6.9 s for the 15 trials of sm, lds and')" "coupled, sm, lds and oracle: 6.9 s of CPU" \
		"$smrl" run --config configs/coupled.yaml --agents sm,lds,oracle --workers 2 -q --out results/claims-coupled-3
	measure "$(line docs/joint-families.md 'one seed of it alone, `--agents mle --seeds 1 --workers 1`, 18.3 s')" "coupled, mle, one seed: 18.3 s of CPU (about 17 s per seed)" \
		"$smrl" run --config configs/coupled.yaml --agents mle --seeds 1 --workers 1 -q --out results/claims-coupled-mle
	again "$(line docs/joint-families.md 'costs about 17 s of CPU per seed, where sm, lds and the oracle together take 1.4 s')" "mle about 17 s of CPU per seed; sm, lds and the oracle 1.4 s per seed (6.9 s / 5)"
	measure "$(line docs/joint-families.md '--workers 2`; 93.4 s of CPU for the 20 trials')" "coupled, sm, mle, lds and oracle: 93.4 s of CPU" \
		"$smrl" run --config configs/coupled.yaml --agents sm,mle,lds,oracle --workers 2 -q --out results/claims-coupled-4
	# control.md: the acrobot comparison at D = 1200, λ = 10⁻³.
	measure "$(line docs/control.md 'full comparison at this setting takes 102 s of CPU since')" "acrobot with lambda = 1e-3: 102 s of CPU" \
		"$smrl" run --config configs/acrobot.yaml --set lambda=0.001 --workers 2 --no-plots -q --out results/claims-acrobot-1e-3
	# kernel-families.md's fits and studies.
	measure_bin "$(line docs/kernel-families.md 'met at every λ in d = 1**, 0.1 to 100')" "four kernel SM fits in d = 1 (λ = 0.1, 1, 10, 100): 0.8–1.0 s of CPU and 0.9–2.1 s wall each (load 7–12); the benchmark prints each fit's" \
		./internal/estimator -test.bench 'BenchmarkKernelSMFit/d=1/' -test.benchtime 1x
	measure_bin "$(line docs/kernel-families.md '(2.0–9.6 s of CPU a fit at')" "six kernel SM fits in d = 2, 3 (λ = 1, 10, 100): 2.0–9.6 s of CPU each; the benchmark prints each fit's" \
		./internal/estimator -test.bench 'BenchmarkKernelSMFit/d=[23]/' -test.benchtime 1x
	SMRL_LONG=1 measure_test "$(line docs/kernel-families.md 'block preconditioner of the solver above: 42 s wall')" "TestKernelBimodalLong: 42 s wall, 15.4 s of CPU (load 8)" ./internal/estimator '^TestKernelBimodalLong$'
	SMRL_LONG=1 measure_test "$(line docs/kernel-families.md '2026-11-28 (8 s)')" "TestKernelSMConsistentLong: 8 s" ./internal/estimator '^TestKernelSMConsistentLong$'
	# mcmc.md's MCMC MLE fits (the whole test binary's CPU, as the doc's commands).
	for d in 2 4 8; do
		measure_bin "$(line docs/mcmc.md '| 2 | 70 | 0.25–0.28 s |')" "MCMC MLE, coupled Gaussian, d = $d: 0.25–0.28 / 0.56–0.68 / 1.88–1.95 s of CPU (d = 2 / 4 / 8)" \
			./internal/estimator -test.bench "BenchmarkMCMCMLE/mcmc-d$d\$" -test.benchtime 1x
	done
	for d in 4 8 16; do
		measure_bin "$(line docs/mcmc.md '| 4 | 125 | 1.7 s |')" "coupled-sin, d = $d, MCMC MLE: 1.7 / 5.6 / 15 s of CPU of the fit (d = 4 / 8 / 16), the process's minus that of sm-d$d below" \
			./internal/estimator -test.bench "BenchmarkMCMCMLECoupledSin/mcmc-d$d\$" -test.benchtime 1x
		measure_bin "$(line docs/mcmc.md '| 4 | 125 | 1.7 s |')" "coupled-sin, d = $d, the same process fitting sm" \
			./internal/estimator -test.bench "BenchmarkMCMCMLECoupledSin/sm-d$d\$" -test.benchtime 1x
	done
else
	echo "(the long claims, whole runs of the shipped configs and go test ./..., run with CLAIMS_LONG=1)"
fi

if [[ ${CLAIMS_BENCH:-} == 1 ]]; then
	echo "benchmarks (-benchtime ${CLAIMS_BENCHTIME:-200ms}; the docs' figures are ranges over rounds, the date in their row):"
	bench "$(line docs/performance.md '`BenchmarkPlannerStep`')" "130–148 µs, 0 allocations (25 Nov); 68–79 µs (25 Nov, 05 h)" ./internal/runner 'PlannerStep$' "${CLAIMS_BENCHTIME_WARM:-1s}"
	again "$(line docs/performance.md 'A transition takes 62 ns on it against')" "62 ns per transition on the specialised path (PlannerStep / 800 transitions), 102–105 ns on the generic loop"
	bench "$(line docs/performance.md '`BenchmarkTrialSM`')" "44–47 ms (25 Nov, 05 h)" ./internal/runner 'TrialSM$' "${CLAIMS_BENCHTIME_WARM:-1s}"
	bench "$(line docs/kernel-families.md 'One product at n = 10⁴ takes 15–17 ms of CPU')" "one kernel SM product at n = 10⁴: 15–17 ms of CPU (min-cpu-ns/op), 24–26 GFLOP/s (28 Nov, load 7–10)" ./internal/estimator 'KernelSMMulV$' 60x
	bench "$(line docs/performance.md '`BenchmarkModelTransition`')" "82–100 ns / 83–127 ns / 274–332 ns / 838–1081 ns" ./internal/runner 'ModelTransition' "${CLAIMS_BENCHTIME_WARM:-1s}"
	bench "$(line docs/performance.md '`BenchmarkCartPoleTrial`')" "257–359 ms" ./internal/runner 'CartPoleTrial'
	bench "$(line docs/performance.md '`BenchmarkFigureRunSet` (a run')" "a run's PNG figures 1.2 s of CPU per 11 sets, 69 MB, 83 k allocations; densities 46 MB, 45 k allocations; SVG set 60 MB; report.html 18 ms, 4.2 MB (28 Nov, load 4–5)" ./internal/plotting 'Figure|ReportHTML' 10x
	bench "$(line docs/performance.md '`BenchmarkAggregateCompute` (4 agents')" "aggregate of 4 agents × 20 seeds × 3 points, 10 000 replicates: 0.17 s of CPU; the paper's shape 12 ms (28 Nov, load 4–5)" ./internal/aggregate 'AggregateCompute|PaperShape' 10x
	bench "$(line docs/performance.md '`BenchmarkPendulumTransition`')" "93–94 ns / 40–41 ns / 322–423 ns, 0 allocations (25 Nov)" ./internal/runner 'PendulumTransition'
	bench "$(line docs/performance.md '`BenchmarkDecision`')" "pendulum sm MPPI / CEM / RSS 172–173 / 257–260 / 252–273 µs; MountainCar 0.91–1.07 ms (25 Nov)" ./internal/runner '^BenchmarkDecision$/^(pendulum|mountain-car)$/'
	again "$(line docs/performance.md '**(25 Nov)** the same under the true physics (oracle) / lds')" "oracle 53–54 / 80–93 / 74–75 µs; lds 36–37 / 53–57 / 48–49 µs (25 Nov)"
	again "$(line docs/performance.md 'the pendulum decisions under the true physics (oracle), its K sequences stepped together')" "oracle, K sequences together: 20.5–21.6 / 32.5–38.4 / 24.8–29.1 µs (25 Nov, 05 h)"
	again "$(line docs/performance.md 'the pendulum decisions with the batch rewards and the leaner RFF call')" "sm 172 / 256 / 249 µs; lds 31.5 / 46.3 / 40.0 µs; oracle 54 / 80 / 75 µs (25 Nov, 03 h)"
	again "$(line docs/performance.md 'one MountainCar decision under sm')" "MountainCar RSS / CEM / MPPI 0.91–0.93 / 1.05–1.07 / 0.94–0.95 ms (25 Nov)"
	again "$(line docs/vector-kernels.md '180–241 µs, 11.2–12.9× faster')" "smrl's MPPI decision 180–241 µs (25 Nov, 03 h), against NumPy's (measured above)"
	bench "$(line docs/control.md "-bench 'ControlDecision/acrobot'")" "acrobot decisions: oracle 0.13–0.14 ms, sm 1.34 ms, lds 0.03–0.06 ms" ./internal/runner 'ControlDecision/acrobot'
	bench "$(line docs/performance.md '(`BenchmarkScaleStep`: MPPI 32')" "one real step at d_s 17, D 2000: 4.43–5.98 ms (decision 3.25–4.35, statistics 0.18–0.24, refit 0.98–1.38 ms; 2026-11-28, load 5–19)" ./internal/runner 'ScaleStep$/h200' 400x
	bench "$(line docs/performance.md '| features: 480 × 2000 × (23 multiplies')" "the step's floor: features 35.5 µs per 8 states (PhiBatch8)" ./internal/expfam/ 'PhiBatch8$' 2000x
	bench "$(line docs/performance.md '| **the step on 2026-11-29**')" "the step at d_s 17, D 2000: default 3.67–3.79 ms (h200), 3.10–3.11 ms (h1000); fma 3.04–3.29 ms (h200), 2.49–2.57 ms (h1000); 68a1240 13.90–14.56 / 10.33–11.32 ms; 54ad5ba fma 3.32–3.47 / 2.79–3.06 ms (2026-11-29 01:25–01:32, load 0.8–1.0); at 21de0cf fma 2.57–3.32 / 2.07–2.64 ms, default 3.42–3.73 / 2.69–3.43 ms, 68a1240 12.25–13.97 / 10.23–10.99 ms (01:59–02:03, load 1.0–1.9)" ./internal/runner 'ScaleStep(FMA)?/h(200|1000)' 2000x
	bench "$(line docs/performance.md '| `BenchmarkPhiBatch16` (default, sixteen states')" "the kernels' loops: PhiBatch8 27.7–28.8 µs, PhiBatch16 26.2–27.2, PhiBatch8FMA 26.1–27.5, PhiBatch16FMA 18.9–20.1 per 8 states; Panel8x2 14.7–15.2 µs (2026-11-29 01:33)" ./internal/expfam/ 'PhiBatch' 2000x
	bench "$(line docs/performance.md '`BenchmarkExtremes2000` (`go test')" "the refit diagnostics' two Lanczos iterations together 58.5–65.0 ms against 66.2–86.4 ms one after the other (2026-11-29 02:10)" ./internal/estimator/ 'Extremes2000' 6x
	bench "$(line docs/performance.md '-bench RefitSM2000 -benchtime 10x')" "a refit at D = 2000: 3.8–7.0 MB allocated released against 29–33 MB fresh; 131–160 against 129–164 ms (2026-11-29 03:22, 03:31)" ./internal/estimator/ 'RefitSM2000' 10x
	bench "$(line docs/performance.md '`BenchmarkRFFPhi2000` (one state, d_s 17, d_a 6, D')" "the features of one state with fma on AVX2: 4.73–4.82 µs against the Go loop's 41.1–41.2 µs and the default AVX2 kernel's 5.80–5.86 µs (2026-11-29 04:30)" ./internal/expfam/ 'RFFPhi2000' 1s
	bench "$(line docs/performance.md '`BenchmarkTrsmPanel2000` (the first')" "Dpotrf's first panel solve: chunked 1.45–2.28 ms, the whole width 1.43–2.41 ms (2026-11-29 03:22, 03:32)" ./internal/linalg/ 'TrsmPanel2000' 1s
	again "$(line README.md 'write their factor into the memory of the fit they replace')" "a run allocates no D × D factor per refit: peak 127–137 MB against 159–172 MB, scale config, 4 episodes (2026-11-29 03:23, 03:31; /usr/bin/time -f %M)"
	bench "$(line README.md 'skip the condition estimate where a bound proves that it passes')" "the condition estimate skipped where proven: 26.6–28.7 ms a refit, 0.13–0.14 ms a step at h200 (2026-11-29 07:12)" ./internal/linalg/ 'Pocon2000' 1s
	bench "$(line docs/performance.md '(480 states, `BenchmarkLQRewards`')" "lq rewards of one decision: 34–42 µs batched against 91–115 µs state by state (2026-11-29 01:50)" ./internal/env/ 'LQRewards' 1s
	again "$(line README.md 'MuJoCo task'"'"'s size (17 states, 6 actions')" "one step of sm 2.5–4.2 ms, 1.8–3.5 ms with fma (docs/performance.md, 2026-11-29 01:25–02:03, 03:24–03:30, 04:38–04:42, 05:02–05:12, then make bench-step ROUNDS=6 at 05:40–05:48, 06:14–06:24 and 06:36–06:48, ROUNDS=4 at 07:17 and 07:56, ROUNDS=6 at 07:31 and 08:23); a refit 112–117 ms against NumPy's 131–194 ms (2026-11-28 23:47–23:53)"
	bench "$(line docs/performance.md '**The step target by one command**')" "the step at d_s 17, D 2000 in six rounds of make bench-step: default 3.02–3.94 ms (h200), 2.52–3.11 ms (h1000); fma 2.42–2.88 ms (h200), 2.00–2.58 ms (h1000); 68a1240 11.28–12.41 / 8.65–9.96 ms (2026-11-29 05:40–05:48, load 0.65–1.07); the ratios need 68a1240's binary: make bench-step" ./internal/runner 'ScaleStep(FMA)?$' 2000x
	bench "$(line docs/performance.md '**The cosines'"'"' constants in registers, and the step at 06:14**')" "the batch kernels with the cosines' constants in registers: PhiBatch16FMA 15.9 µs per 8 states against 18.8–18.9, PhiBatch8FMA 23.8 against 29.3 (2026-11-29 05:58, 06:24)" ./internal/expfam/ 'PhiBatch' 2000x
	bench "$(line docs/performance.md '| 1 | 12.77 / 8.70 |')" "the step at b923127 in six rounds of make bench-step: default 2.95–3.87 ms (h200), 2.47–3.26 (h1000); fma 2.28–3.16 (h200), 1.78–2.56 (h1000); 68a1240 12.00–14.80 / 8.70–11.63 ms (2026-11-29 06:36–06:48)" ./internal/runner 'ScaleStep(FMA)?$' 2000x
	bench "$(line docs/performance.md '| 07:17, 1 | 14.23 / 10.95 |')" "the step at 9d79318 in ten rounds of make bench-step: default 3.46–4.11 ms (h200), 2.93–3.52 (h1000); fma 2.60–3.20 (h200), 1.97–2.56 (h1000); 68a1240 13.42–14.94 / 9.29–12.01 ms (2026-11-29 07:17–07:40); medians at 07:31 default 3.84 / 3.15 ms, fma 3.10 / 2.39 ms" ./internal/runner 'ScaleStep(FMA)?$' 2000x
	bench "$(line docs/performance.md '(`BenchmarkPocon2000`, 07:12)')" "the condition estimate of a D = 2000 factor: 26.6–28.7 ms (2026-11-29 07:12)" ./internal/linalg/ 'Pocon2000' 1s
	skip "$(line docs/performance.md '`Impl.Dsyrk` of the Cholesky'"'"'s first update (n 1872, k 128)')" "Dsyrk n 1872: 10.7–11.3 ms at k 128, 19.5–20.1 at k 256; Refit2000 85–124 / 97–125 ms with the prefetch against 90–131 without (2026-11-29 07:20–07:30)" "a throwaway benchmark and a kernel variant that were not kept"
	bench "$(line docs/performance.md '| 1 | 12.13 / 9.33 |')" "the step at d9f2fdf in six rounds of make bench-step: default 2.92–3.93 ms (h200), 2.55–3.41 (h1000); fma 2.26–3.01 (h200), 1.85–2.52 (h1000); 68a1240 11.60–14.17 / 9.16–11.18 ms (2026-11-29 08:23–08:32); the ratios need 68a1240's binary: make bench-step" ./internal/runner 'ScaleStep(FMA)?$' 2000x
	bench "$(line docs/performance.md '| 1 | 13.68 / 10.98 |')" "the step at ba64120 (the condition estimate skipped where proven) in four rounds of make bench-step: default 3.31–3.65 ms (h200), 2.76–3.32 (h1000); fma 2.21–3.09 (h200), 1.99–2.42 (h1000); 68a1240 12.90–14.84 / 9.32–11.45 ms (2026-11-29 07:56–08:03); the ratios need 68a1240's binary: make bench-step" ./internal/runner 'ScaleStep(FMA)?$' 2000x
	bench "$(line docs/performance.md '9e413b3'"'"'s binary at 07:50: the refit'"'"'s share')" "the refit's share of the h200 step 0.55–0.65 ms against 0.69–0.83 ms before the condition estimate was skipped (four rounds alternated, 2026-11-29 07:50)" ./internal/runner 'ScaleStep(FMA)?/h200' 2000x
	skip "$(line docs/performance.md 'bound is 7.5·10¹² at 2000 transitions')" "the bound on the condition estimate at the scale config's constants: 7.5e12 at 2000 transitions, 7.6e13 at 4500, 6.4e14 at 5000, none from 5500" "go test -run TestCertificateReach -v ./internal/estimator/ logs them (and checks 2000 and 6000)"
	bench "$(line docs/performance.md '| 1 | 13.34 / 10.60 |')" "the step at 15a823a in six rounds of make bench-step: default 3.18–3.94 ms (h200), 2.66–3.87 (h1000); fma 2.34–3.16 (h200), 1.88–2.67 (h1000); 68a1240 13.34–15.20 / 9.78–11.49 ms (2026-11-29 08:50–09:00); the ratios need 68a1240's binary: make bench-step" ./internal/runner 'ScaleStep(FMA)?$' 2000x
	bench "$(line docs/performance.md '| 1 | 14.80 / 10.63 |')" "the step at e808788 in six rounds of make bench-step: default 2.83–3.76 ms (h200), 2.48–3.36 (h1000); fma 2.16–3.12 (h200), 1.82–2.52 (h1000); 68a1240 11.22–14.91 / 8.31–11.05 ms (2026-11-29 09:25–09:33); with fma the target met in 19 of 22 rounds at each cadence at the issue's speed since 07:56, the default in 1 and 4; the ratios need 68a1240's binary: make bench-step" ./internal/runner 'ScaleStep(FMA)?$' 2000x
	again "$(line README.md 'step met issue 34'"'"'s target')" "with fma the step met the target in 19 of the last 22 rounds at h200 and at h1000 (at the issue's speed), the default arithmetic in 1 and 4 (make bench-step, 2026-11-29 07:56–09:33)"
	again "$(line docs/continuous-control.md 'that reaches issue 34'"'"'s step target')" "with fma the step 2.25–2.90 ms at the medians of four sets against 3.10–3.50 ms, the target met in 19 of 22 rounds at the issue's speed, the default in 1 and 4 (make bench-step, 2026-11-29 07:56–09:33)"
	bench "$(line docs/performance.md 'PhiAmongEta -benchtime 3000x -count 4')" "one AVX-512 Phi after 400 AVX2 η calls at the pendulum's sizes: η 441–489 ns against 344–369 ns with Phi in AVX2, Phi with a clock read 730–1100 against 618–691 ns (2026-11-29 09:49)" ./internal/expfam/ 'PhiAmongEta' 3000x
	skip "$(line docs/performance.md 'took more CPU time than at 15a823a in 23 of 28 alternated pairs')" "smrl estimate at D = 1024 with Phi in AVX2 slower in 23 of 28 pairs (n = 10⁵: 3.77 against 3.43 s; 604aa16's PhiBulk 3.125 s, the same code as 15a823a's there) (2026-11-29 09:45–09:48)" "needs the binaries of 15a823a and of e808788 for the comparison; the command is in the paragraph"
	skip "$(line docs/performance.md 'sampled rollouts (`planner.rollout: sample`) at D = 2000 the planner steps')" "sampled rollouts at D = 2000: the threshold not told apart from no AVX-512 Phi (four rounds, 2026-11-29 09:44)" "a sub-benchmark and a build that were not kept"
	again "$(line docs/vector-kernels.md 'after every 400 of its η calls made those calls take')" "one 512-bit Phi after 400 AVX2 η calls: 441–489 ns against 344–369 ns a call (BenchmarkPhiAmongEta, 2026-11-29 09:49); the pendulum's run 11–18% more CPU time (three sets of eight runs, 09:09–09:19)"
	skip "$(line docs/performance.md '1` took 2.315 s of CPU against 68a1240'"'"'s 2.085 s')" "the pendulum's run at 15a823a against 68a1240 and with AVX-512 off, three sets of eight (2026-11-29 09:09–09:19)" "needs the binaries of 68a1240 and 15a823a; the command is in the paragraph"
	skip "$(line docs/performance.md '(the paper'"'"'s comparison) took 3.38·10⁹')" "CartPole and the comparison against 68a1240: the same instructions (callgrind), time differences of 0–16% not resolved (2026-11-29 09:01–10:00)" "needs 68a1240's binary; the commands are in the paragraph"
	bench "$(line docs/performance.md 'measured again at 604aa16 with `make bench-scale ROUNDS=2`')" "the refit at D = 2000: 120 / 141 ms CPU against NumPy's 167 / 162 ms; estimate --se none 0.71 / 0.84 s against 1.00 / 1.29 s, with the sandwich 3.11 / 3.31 s against 2.85 / 2.95 s (2026-11-29 09:56–10:00; the NumPy side and estimate: make bench-scale)" ./internal/linalg/ 'Refit2000$' 3x
	skip "$(line docs/performance.md '| pendulum, `--seeds 2 --episodes 10` | 1.345')" "the pendulum, mountain car and Acrobot runs of 68a1240, 15a823a and e808788's code: pendulum 1.345 / 1.585 / 1.320 s CPU, fma 1.405 / 1.295, mountain car 2.405 / 2.450 / 2.240, Acrobot 6.370 / 2.750 / 2.630 (2026-11-29 09:20–09:23)" "needs the binaries of 68a1240 and 15a823a; the commands are in the paragraph"
	bench "$(line docs/performance.md '| 1 | 15.81 / 11.39 |')" "the step at 9a0a3f1 in six rounds of make bench-step: default 3.66–4.15 ms (h200), 3.09–3.49 (h1000); fma 2.91–3.34 (h200), 2.10–2.63 (h1000); 68a1240 13.58–15.81 / 10.83–12.07 ms (2026-11-29 06:14–06:24)" ./internal/runner 'ScaleStep(FMA)?$' 2000x
	bench "$(line docs/performance.md '| **the step at the end of this work**')" "the step at d_s 17, D 2000: default 3.74–4.45 ms (h200), 3.32–3.88 ms (h1000); fma 3.13–3.34 ms (h200), 2.67–2.70 ms (h1000); 68a1240 12.62–13.21 / 9.11–10.62 ms (2026-11-28 23:47–23:53, load 1.1–2.1)" ./internal/runner 'ScaleStep(FMA)?$' 2000x
	bench "$(line docs/performance.md '; `BenchmarkScaleStepFMA`, ')" "the step with model.features.fma: true 3.59–4.15 ms at h200 (decision 2.30–2.69 ms) against 4.43–4.93 ms, 2.75–3.08 ms at h1000 against 3.73–4.08 ms (2026-11-28, load 2.1–2.9)" ./internal/runner 'ScaleStep(FMA)?$/h200' 400x
	bench "$(line docs/performance.md '`rffBatch16AVX512FMA` (`BenchmarkPhiBatch16FMA`)')" "fused features: 21.7–22.0 µs per 8 states in sixteen (PhiBatch16FMA), 31.5–32.7 in eight (PhiBatch8FMA), against 35.5 µs (PhiBatch8)" ./internal/expfam/ 'PhiBatch' 2000x
	bench "$(line docs/performance.md '| η = W φ: 480 × 17 × 2000 fused multiply-adds')" "the step's floor: peak 54.6 / 88.4 GFLOP/s (PeakFMA), η 16.8 µs per 16 states (Panel8x2), refit 168–183 ms (Refit2000)" ./internal/linalg/ 'PeakFMA|Panel8x2|Refit2000(AVX2)?$' 300x
	bench "$(line docs/expressions.md '`BenchmarkExprFamilyDecision`')" "1564, 1532 and 1847 ns at load 12–28; 114–120, 96–121 and 187–237 ns at load 7 (2026-11-28, -benchtime 1s)" ./internal/runner 'ExprFamilyDecision' "${CLAIMS_BENCHTIME_WARM:-1s}"
	bench "$(line docs/vector-kernels.md "go test -bench 'Exp|Sincos'")" "exp 1.8–2.1 ns against 13.7–14.2 ns; sin 2.6 against 11.5; sincos 2.9 against 13.5" ./internal/vmath/ 'Exp|Sincos'
	again "$(line docs/performance.md "go test -bench 'Exp\\|Sincos' ./internal/vmath/")" "1.8–2.1 / 2.6 / 2.9 ns against 13.7–14.2 / 11.5 / 13.5 ns per element (25 Nov, 05 h)"
	again "$(line docs/performance.md "no faster than Go's amd64 \`math.Exp\` (7.5 against 7.1 ns alone")" "math.Exp 7.1 ns alone (the table-driven exp it was compared with is not in the code)"
	bench "$(line docs/performance.md '`BenchmarkBumpsRewards`')" "14.9–15.1 / 7.6–8.6 ns against 45–47 ns per state" ./internal/env 'BumpsRewards'
	again "$(line docs/vector-kernels.md '`BenchmarkBumpsRewards` (internal/env): 15 ns per state')" "15 ns per state in calls of four, 7.6–8.6 ns in calls of 64, against 45–47 ns"
	bench "$(line docs/performance.md '`BenchmarkAtan2`')" "3.5–3.8 ns / 17.8–21.4 ns per angle (64 angles a call)" ./internal/env 'Atan2'
	again "$(line docs/vector-kernels.md '3.7 ns per angle against 14–16 ns')" "3.7 ns per angle against 14–16 ns one call each"
	bench "$(line docs/external.md 'BenchmarkExternalStep -benchtime')" "19–43 µs (Go server), 41–280 µs (Python) per step, wall, under load" ./internal/env 'ExternalStep'
	again "$(line docs/external.md '**24 µs of CPU per step for both sides')" "24 µs of CPU per step (Go server), 49 µs (Python), both sides together"
	bench "$(line docs/performance.md '`BenchmarkTableSample`')" "34–48 ns; 250–419 ns (2026-11-28, load 7)" ./internal/expfam 'TableSample$' "${CLAIMS_BENCHTIME_WARM:-1s}"
	bench "$(line docs/performance.md '`BenchmarkNewCDF`, `BenchmarkTableRow`')" "0.29–0.31 ms / 0.67–0.73 ms" ./internal/expfam 'NewCDF$|TableRow$'
	again "$(line docs/configuration.md 'each a quadrature (0.5 ms, more far out)')" "a table row's quadrature: 0.5 ms (BenchmarkTableRow)"
	bench "$(line docs/performance.md '`BenchmarkTableRowsFar` (16 rows')" "16 far rows: 61–117 ms (588 ms before, 24 Nov)" ./internal/expfam 'TableRowsFar' 3x
	bench "$(line docs/joint-families.md '`BenchmarkWarmChainCoupledSin`')" "a 20-transition warm-chain draw at d = 4: about 90 µs of CPU" ./internal/expfam 'WarmChainCoupledSin'
	bench "$(line docs/performance.md '`BenchmarkRFFPhi` / η')" "222–230 ns / 286–289 ns" ./internal/expfam 'RFFPhi$|RFFEta$'
	bench "$(line docs/hardening.md '`BenchmarkReadMapped`')" "about 40 ns per row read / about 30 µs to check and decode a row" ./internal/expfam 'ReadMapped|CachedRow'
	bench "$(line docs/expressions.md '`BenchmarkExprCoordSample`')" "0.5 ms at load 12" ./internal/expfam 'ExprCoordSample'
	again "$(line docs/expressions.md 'That costs one quadrature per draw, about 0.1–0.5 ms')" "one quadrature per draw, about 0.1–0.5 ms"
	bench "$(line docs/performance.md '`BenchmarkRead1e6`')" "617–749 ns / 1.61–1.77 µs per row" ./internal/dataset 'Read1e6'
	bench "$(line docs/mcmc.md '`BenchmarkHMC2D`')" "HMC 2-D / 8-D / 32-D 0.4 / 1.8 / 14 µs per transition; MALA 8-D 0.3 µs; ESS 1 ms" ./internal/mcmc 'HMC|MALA|ESS'
	bench "$(line docs/expressions.md '`BenchmarkPsiD`')" "49–50 ns; PaperFamily 168 vs 60 ns" ./internal/expr 'PsiD|PaperFamily'
	bench "$(line docs/performance.md '`BenchmarkRefit2000`')" "180 / 194 / 210 ms CPU (-cpu 1)" ./internal/linalg 'Refit2000$'
	bench "$(line docs/statistics.md '| lds | 10³ | 6.7 µs | 0.42 ms | 63× |')" "fixed λ / lambda: cv per refit: lds 10³ 6.7 µs / 0.42 ms; lds 10⁴ 5.5 µs / 1.11 ms; sm 10³ 7.0 µs / 0.73 ms; mle 10³ 0.38 ms / 31 ms" ./internal/agent 'Refit(LDS|SM|MLE)(CV)?1e[34]$'
	bench "$(line docs/statistics.md 'the sandwich costs 1.8× the SM fit for custom-sin')" "SM fit / with the sandwich: custom-sin n = 10⁴ 1.49–1.57 / 2.75–2.79 ms; Gaussian 20×50 24–29 / 38–53 ms (2026-11-28); lambda: cv 1.1–1.5× / 1.9–2.5× a fit; custom-sin n = 10⁶ 130–153 ms" ./internal/estimator 'SM(Sandwich|CV)?(CustomSin1e4|Gaussian20x50)$|SMCustomSin1e6$'
	again "$(line docs/statistics.md 'points, with the final fit, cost 1.1–1.5× one fit')" "lambda: cv 1.1–1.5× one fit (custom-sin), 1.9–2.5× (Gaussian 20×50)"
	again "$(line docs/performance.md '| SM estimate, custom-sin, n = 10⁴ / 10⁶ (one core) |')" "1.15–1.32 ms / 130–153 ms"
	again "$(line docs/performance.md '| SM estimate, Gaussian d_s = d_psi = 20, d_phi = 50, n = 10⁴ |')" "15–23 ms"
	bench "$(line docs/outputs.md 'They cost about 1.4 ms per refit of 200 features')" "the conditioning diagnostics: about 1.4 ms per refit of 200 features, a third to two fifths of the fit" ./internal/estimator 'ConditioningRFF200|FitRFF200'
	bench "$(line docs/weighted-sm.md '| relu, weighted (`model.kink: weighted`) |')" "SM on 10⁶ transitions, CPU ms per fit: relu weighted 78–98, kernel 110–114, none 59–72; beta weighted 81–91, plain 58–72" ./internal/estimator 'SM(ReLU|Beta)1e6'
	again "$(line docs/weighted-sm.md 'A 10⁶-transition relu fit took under 100 ms of CPU')" "a 10⁶-transition relu fit: under 100 ms of CPU then, 141–150 ms on 2026-11-28 (load 7); weighted 0.7–0.9× kernel, 1.1–1.3× none"
	bench "$(line docs/statistics.md '(`go test ./internal/aggregate -bench PaperShape`)')" "the paper comparison's aggregates with 10 000 draws: 22 ms of CPU" ./internal/aggregate 'PaperShape'
else
	echo "(the benchmark figures, ns/op and µs per decision, run with CLAIMS_BENCH=1)"
fi

# Claims this script cannot measure here; each states its date and command
# in its file.
skip "$(line docs/mujoco.md '26 min of wall time here')" "MuJoCo runs of 26–34 min" "needs libmujoco-dev and -tags mujoco (make mujoco, make test-mujoco)"
skip "$(line docs/mujoco.md 'go test -tags mujoco ./internal/env/mujoco/` (about')" "about 1 s" "needs libmujoco-dev (make test-mujoco)"
skip "$(line docs/cluster.md '77 s for a first run')" "Slurm end-to-end test, 56–112 s" "needs root and installs Slurm packages (scripts in docs/cluster.md)"
skip "$(line docs/performance.md 'three rounds alternating with main')" "rows comparing a change with the main of 24–25 Nov" "historical: the other side is an old commit; the rows carry their date"
skip "$(line docs/control.md '| 1200 | 10⁻⁴ | **shipped**')" "acrobot feature-size table, 20–342 s of CPU a row" "ten runs of 1–6 min each; the commands are in docs/control.md"
skip "$(line docs/continuous-control.md '| pendulum | rss | oracle')" "per-step µs of 30 agent × planner × task runs" "hours of CPU; the per-decision benchmarks (CLAIMS_BENCH=1) measure the same steps"
skip "$(line docs/mujoco.md '27 min of wall time here')" "inverted-pendulum, sm, 10 × 20 episodes: 27 min of wall time" "needs libmujoco-dev and -tags mujoco"
skip "$(line docs/mujoco.md '163 s of CPU, 28 min of wall time')" "a MuJoCo run: 163 s of CPU, 28 min of wall time" "needs libmujoco-dev and -tags mujoco"
skip "$(line docs/mujoco.md '194 s of CPU, 34 min of wall time')" "a MuJoCo run: 194 s of CPU, 34 min of wall time" "needs libmujoco-dev and -tags mujoco"
skip "$(line docs/cluster.md '9 packages, about 20 s')" "installing the Slurm packages: about 20 s" "needs root and installs Slurm packages"
skip "$(line docs/cluster.md '`sbatch --wait` takes 42 s of that')" "the Slurm test's parts: sbatch --wait 42 s, the array's work 20–30 s, a run 11–20 s" "needs root and installs Slurm packages"
skip "$(line docs/cluster.md 'The sweep example adds about 55 s')" "the Slurm sweep example: about 55 s, the whole test 106–112 s" "needs root and installs Slurm packages"
skip "$(line docs/cartpole.md '(2 to 8 minutes per run)')" "the cartpole tie-break study, 2 to 8 minutes per run" "a study of many multi-minute runs; its commands are in docs/cartpole.md"
skip "$(line docs/control.md '--set '"'"'cv.grid=[1e-5,1e-4,1e-3]'"'"' --set cv.folds=3`) 120.9')" "acrobot with lambda: cv on 3 seeds: 160 s of CPU against 28 s" "a one-off study of minutes of CPU; its command is in docs/control.md"
skip "$(line docs/control.md '90 s of CPU and 46 s of wall time when it was')" "the acrobot comparison's first measurement, 90 s of CPU" "historical: before the kernels of vector-kernels.md were last tuned"
skip "$(line docs/joint-families.md 'chains: about 7 ms of CPU per transition at d = 8')" "MCMC MLE about 7 ms of CPU per transition at d = 8, 10–15 ms at d = 16; a minute per fit at n = 10⁴" "the study of the table above it (minutes of CPU per row); its commands are in docs/joint-families.md"
skip "$(line docs/data.md 'About 5 ms of CPU per held-out transition at d = 2')" "about 5 ms of CPU per held-out transition at d = 2" "no command is stated beside it"
skip "$(line docs/external.md '1.1 s to start through a pyenv shim and 0.4 s')" "starting damped_pendulum.py: 1.1 s through a pyenv shim, 0.4 s as /usr/bin/python3" "a pyenv shim is not installed here; the run of external-pendulum.yaml (CLAIMS_LONG=1) includes the starts"
skip "$(line docs/external.md 'took the Go server'"'"'s step from 32–36 µs to 26–29 µs')" "the reader goroutine's gain, 32–36 µs to 26–29 µs" "historical: the other side is the former code"
skip "$(line docs/reproduction.md 'against 10.1 s')" "the 15 points run one by one with smrl run: 10.1 s (6.9 s)" "a quiet-machine comparison of 15 separate runs, not scripted"
skip "$(line docs/performance.md '49 µs in an earlier quiet session and 98–148 µs')" "the introduction's figures of earlier passes" "historical: each names its pass"
skip "$(line docs/performance.md '| **(25 Nov, 05 h)** the same, three passes of 15 interleaved runs against before |')" "compare --no-plots against before (ef876e2), 05 h" "historical: the other side is an old commit"
skip "$(line docs/performance.md '| **(25 Nov, 03 h)** `smrl run --config configs/pendulum.yaml`, four rounds alternating with main |')" "pendulum runs alternating with main (03 h and 05 h), custom-sin d_s = 8 against main" "historical: the other side is an old commit; CLAIMS_LONG=1 measures the runs themselves"
skip "$(line docs/performance.md '| **(28 Nov)** the refit diagnostics of [outputs.md]')" "the refit diagnostics' instruction counts" "callgrind instruction counts against an old commit, not times"
skip "$(line docs/performance.md '| **(by 24 Nov)** overhead per grid point')" "overhead per grid point: 1.8 ms, 13 ms, 0.21–0.23 s" "the row says it was not re-measured; the ablation sweep (above) measures the whole"
skip "$(line docs/performance.md 'figures drawn one after another take')" "the profile before the measures of that section (98% rollouts, 0.33 s of figures)" "historical: describes the code before those measures"
skip "$(line docs/performance.md '(about 20 fsyncs, 20 ms of disk time in all)')" "syncing the journal in the background: 20 ms of disk time" "needs the variant that was not kept"
skip "$(line docs/vector-kernels.md "Phi's first pass alone took 121 ns against 106 ns")" "a variant with four accumulators: 121 ns against 106 ns" "historical: the variant is not in the code"
skip "$(line docs/commands.md 'was 3.3× too high')" "the former ETA, 2.4 s for 0.7 s left" "describes the estimator smrl no longer uses"
skip "$(line docs/weighted-sm.md '3 min 52 s of CPU')" "the 100-repeat estimation sweep" "minutes of CPU, a one-off study"
skip "$(line docs/mcmc.md '| 8 | 160 |')" "MCMC MLE timings per dimension" "a study of several minutes; commands in docs/mcmc.md"

if [[ -s $work/missing ]]; then
	echo "check-claims: claims whose text is no longer in their file (update scripts/check-claims.sh):" >&2
	cat "$work/missing" >&2
	exit 1
fi
