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
# (CLAIMS_BENCHTIME, default 200ms, sets go test's -benchtime). The claims
# that cannot be measured here (MuJoCo, a cluster, NumPy, comparisons with
# older commits) are listed last as "not re-measured", with the reason.
#
# Output, one line per claim:
#   FILE:LINE  claimed: TEXT  measured: W s wall, C s CPU  (COMMAND)
# It prints; it does not judge: a reader compares the two columns, and a
# claim that no longer holds is corrected in its file with the date.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/smrl-claims.XXXXXX")
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/smrl"
export GOCACHE="$work/gocache"
cd "$work/smrl"

# measure FILE:LINE CLAIM COMMAND...: runs COMMAND in the clone, prints
# the claim and the measured wall and CPU (user + system, children
# included) seconds.
measure() {
	local where=$1 claim=$2
	shift 2
	if ! /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >/dev/null 2>"$work/err"; then
		echo "$where  claimed: $claim  FAILED: $(tail -3 "$work/err" | tr '\n' ' ')  ($*)"
		return
	fi
	local wall user sys
	read -r wall user sys <"$work/time"
	printf '%s  claimed: %s  measured: %s s wall, %s s CPU  (%s)\n' "$where" "$claim" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf (u + s < 1 ? "%.2f" : "%.1f"), u + s }')" "$*"
}

# measure_test FILE:LINE CLAIM PKG REGEX: the CPU time of go test's run of
# the tests matching REGEX in PKG, compile excluded (the test binary is
# built first, untimed), as the docs' "(N s)" after a go test command means.
measure_test() {
	local where=$1 claim=$2 pkg=$3 re=$4 bin
	bin="$work/test-$(echo "$pkg$re" | tr -c 'A-Za-z0-9' _)"
	if ! go test -c -o "$bin" "$pkg" >/dev/null 2>"$work/err"; then
		echo "$where  claimed: $claim  FAILED to build: $(tail -3 "$work/err" | tr '\n' ' ')  (go test $pkg)"
		return
	fi
	(cd "$pkg" && measure "$where" "$claim" "$bin" -test.count=1 -test.run "$re") |
		sed "s|(\S*/test-\S* -test.count=1 -test.run \(.*\))\$|(go test -count=1 -run \1 $pkg, compile excluded)|"
}

# bench FILE:LINE CLAIM PKG REGEX: runs the benchmarks matching REGEX in
# PKG and prints each one's figures (ns/op, allocs/op and its own metrics,
# such as µs/decision or ns/row) beside the claim.
bench() {
	local where=$1 claim=$2 pkg=$3 re=$4 out
	if ! out=$(go test -run '^$' -bench "$re" -benchmem -benchtime "${CLAIMS_BENCHTIME:-200ms}" -count 1 "$pkg" 2>&1); then
		echo "$where  claimed: $claim  FAILED: $(echo "$out" | tail -3 | tr '\n' ' ')  (go test -bench '$re' $pkg)"
		return
	fi
	echo "$where  claimed: $claim  measured (go test -bench '$re' $pkg):"
	echo "$out" | awk '/^Benchmark/ { line = "    " $1 " "; for (i = 3; i < NF; i += 2) if ($(i+1) != "B/op" && !($(i+1) == "ns/op" && $i == 0)) line = line " " $i " " $(i+1); print line }'
}

# skip FILE:LINE CLAIM REASON: a claim this script does not re-measure.
skip() {
	echo "$1  claimed: $2  not re-measured: $3"
}

# again FILE:LINE CLAIM: the last measurement, for another claim of it.
again() {
	echo "$1  claimed: $2  measured: (as above)"
}

# line FILE TEXT: FILE:N of the first line of FILE holding TEXT (FILE:? when
# none does: the claim moved, and this list wants updating).
line() {
	local n
	n=$(grep -n -m1 -F -- "$2" "$repo/$1" | cut -d: -f1 || true)
	echo "$1:${n:-?}"
}

echo "check-claims: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"

# README's first command, compile included (empty build cache).
measure "$(line README.md 'compile included')" "101 s of CPU with an empty build cache, compile included" \
	go run ./cmd/smrl compare -q
go build -o "$work/smrl-bin" ./cmd/smrl
smrl=$work/smrl-bin
measure "$(line README.md 'smrl compare` alone')" "smrl compare alone, compiled: 1.7 s of CPU" "$smrl" compare -q --out results/claims-compare
again "$(line docs/performance.md '`smrl compare` with its figures and report')" "smrl compare with figures and report: 1.2–1.4 s of CPU (24 Nov)"
measure "$(line docs/performance.md '`smrl version` alone takes')" "smrl version alone: 20 ms" "$smrl" version
measure "$(line README.md 'version took 0.8 s')" "pendulum, 2 seeds × 3 episodes: 0.8 s of CPU" \
	"$smrl" run --config configs/pendulum.yaml --seeds 2 --episodes 3 --out results/claims-pendulum-short -q
measure "$(line README.md 'λ sweep (the λ sweep')" "the README's λ sweep (no time claimed)" \
	"$smrl" sweep --config configs/quick.yaml --agents sm,oracle --seeds 5 --set lambda=log:1e1:1e5:5 --out results/claims-lambda -q
measure "$(line README.md '15 points, 450 trials')" "the planner ablation sweep: 19 s of CPU, figures included" \
	"$smrl" sweep --config configs/ablation-tau-rollouts.yaml --out results/claims-ablation -q
again "$(line docs/performance.md '(15 points, 450 trials, 22 500 episodes)')" "8.4–9.4 s of wall time with figures (a quiet machine)"
again "$(line docs/sweeps.md '15 points')" "the planner ablation sweep: 19 s of CPU with figures"
again "$(line docs/reproduction.md 'The sweep took')" "the planner ablation: 18.8 s of CPU, figures included"
measure "$(line docs/statistics.md 'used 1.326 s of CPU')" "compare --no-plots: 1.3 s of CPU" \
	"$smrl" compare --no-plots -q --out results/claims-compare-noplots

again "$(line docs/performance.md '`smrl compare --no-plots`, paper config, warm')" "0.74 s of CPU (0.72–0.76), 0.41 s of wall time (25 Nov)"
measure "$(line docs/statistics.md 'episodes: `smrl run --seeds 5 --episodes 50 --workers 1`')" "1.1 s of CPU (d = 2)" \
	"$smrl" run --seeds 5 --episodes 50 --workers 1 --no-plots -q --out results/claims-se-paper
measure "$(line docs/statistics.md '10 episodes) 0.8 s without')" "pendulum, sm, one seed, 10 episodes: 0.8 s of CPU without standard errors" \
	"$smrl" run --config configs/pendulum.yaml --set 'agents=[sm]' --seeds 1 --episodes 10 --workers 1 --no-plots -q --out results/claims-se-pendulum

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
	# robust-sm.md's study: its config is the page's first yaml block.
	awk '/^```yaml/ { f = 1; next } /^```/ { if (f) exit } f' docs/robust-sm.md >"$work/study.yaml"
	measure "$(line docs/robust-sm.md 'Run with `smrl run --config study.yaml --no-plots` (about')" "about 10 s (with sm.floor: 0)" \
		"$smrl" run --config "$work/study.yaml" --set sm.floor=0 --no-plots -q --out results/claims-robust-study
	measure "$(line docs/optimism.md '(17.5 s against 3.8 s')" "sm-ucb with value: lookahead, 3.8 s (10 seeds × 50 episodes)" \
		"$smrl" run --config configs/exploration.yaml --set 'agents=[sm-ucb]' --no-plots -q --out results/claims-ucb-lookahead
	measure "$(line docs/optimism.md '(17.5 s against 3.8 s')" "sm-ucb with value: rollout, 17.5 s" \
		"$smrl" run --config configs/exploration.yaml --set 'agents=[sm-ucb]' --set confidence.value=rollout --no-plots -q --out results/claims-ucb-rollout
	measure "$(line docs/external.md 'takes about 2 minutes, nearly all')" "about 2 minutes; 129 s wall, 89 s CPU (2026-11-28)" \
		"$smrl" run --config configs/external-pendulum.yaml --no-plots -q --out results/claims-external
	measure "$(line docs/development.md 'go test ./...`: ')" "255 s of CPU on a fresh clone, compile included" \
		go test -count=1 ./...
	measure "$(line docs/development.md 'they take about')" "about 100 s" \
		env SMRL_DOCS=1 go test -count=1 -run '^TestDocExamples$' ./cmd/smrl
else
	echo "(the long claims, whole runs of the shipped configs and go test ./..., run with CLAIMS_LONG=1)"
fi

if [[ ${CLAIMS_BENCH:-} == 1 ]]; then
	echo "benchmarks (-benchtime ${CLAIMS_BENCHTIME:-200ms}; the docs' figures are ranges over rounds, the date in their row):"
	bench "$(line docs/performance.md '`BenchmarkPlannerStep`')" "130–148 µs, 0 allocations (25 Nov); 68–79 µs (25 Nov, 05 h)" ./internal/runner 'PlannerStep$'
	bench "$(line docs/performance.md '`BenchmarkTrialSM`')" "44–47 ms (25 Nov, 05 h)" ./internal/runner 'TrialSM$'
	bench "$(line docs/performance.md '`BenchmarkModelTransition`')" "82–100 ns / 83–127 ns / 274–332 ns / 838–1081 ns" ./internal/runner 'ModelTransition'
	bench "$(line docs/performance.md '`BenchmarkCartPoleTrial`')" "257–359 ms" ./internal/runner 'CartPoleTrial'
	bench "$(line docs/performance.md '`BenchmarkPendulumTransition`')" "93–94 ns / 40–41 ns / 322–423 ns, 0 allocations (25 Nov)" ./internal/runner 'PendulumTransition'
	bench "$(line docs/performance.md '`BenchmarkDecision`')" "pendulum sm MPPI / CEM / RSS 172–173 / 257–260 / 252–273 µs; MountainCar 0.91–1.07 ms (25 Nov)" ./internal/runner '^BenchmarkDecision$/^(pendulum|mountain-car)$/'
	bench "$(line docs/expressions.md '`BenchmarkExprFamilyDecision`')" "1564, 1532 and 1847 ns" ./internal/runner 'ExprFamilyDecision'
	bench "$(line docs/vector-kernels.md "go test -bench 'Exp|Sincos'")" "exp 1.8–2.1 ns against 13.7–14.2 ns; sin 2.6 against 11.5; sincos 2.9 against 13.5" ./internal/vmath/ 'Exp|Sincos'
	bench "$(line docs/performance.md '`BenchmarkBumpsRewards`')" "14.9–15.1 / 7.6–8.6 ns against 45–47 ns per state" ./internal/env 'BumpsRewards'
	bench "$(line docs/performance.md '`BenchmarkAtan2`')" "3.5–3.8 ns / 17.8–21.4 ns per angle (64 angles a call)" ./internal/env 'Atan2'
	bench "$(line docs/external.md 'BenchmarkExternalStep -benchtime')" "19–43 µs (Go server), 41–280 µs (Python) per step, wall, under load" ./internal/env 'ExternalStep'
	bench "$(line docs/performance.md '`BenchmarkTableSample`')" "34–48 ns" ./internal/expfam 'TableSample$'
	bench "$(line docs/performance.md '`BenchmarkNewCDF`, `BenchmarkTableRow`')" "0.51–0.57 ms / 0.76–0.84 ms" ./internal/expfam 'NewCDF$|TableRow$'
	bench "$(line docs/performance.md '`BenchmarkRFFPhi` / η')" "222–230 ns / 286–289 ns" ./internal/expfam 'RFFPhi$|RFFEta$'
	bench "$(line docs/hardening.md '`BenchmarkReadMapped`')" "about 40 ns per row read / about 30 µs to check and decode a row" ./internal/expfam 'ReadMapped|CachedRow'
	bench "$(line docs/expressions.md '`BenchmarkExprCoordSample`')" "0.5 ms at load 12" ./internal/expfam 'ExprCoordSample'
	bench "$(line docs/performance.md '`BenchmarkRead1e6`')" "617–749 ns / 1.61–1.77 µs per row" ./internal/dataset 'Read1e6'
	bench "$(line docs/mcmc.md '`BenchmarkHMC2D`')" "HMC 2-D / 8-D / 32-D 0.4 / 1.8 / 14 µs per transition; MALA 8-D 0.3 µs; ESS 1 ms" ./internal/mcmc 'HMC|MALA|ESS'
	bench "$(line docs/expressions.md '`BenchmarkPsiD`')" "49–50 ns; PaperFamily 168 vs 60 ns" ./internal/expr 'PsiD|PaperFamily'
	bench "$(line docs/performance.md '`BenchmarkRefit2000`')" "180 / 194 / 210 ms CPU (-cpu 1)" ./internal/linalg 'Refit2000$'
else
	echo "(the benchmark figures, ns/op and µs per decision, run with CLAIMS_BENCH=1)"
fi

# Claims this script cannot measure here; each states its date and command
# in its file.
skip "$(line docs/mujoco.md '26 min of wall time here')" "MuJoCo runs of 26–34 min" "needs libmujoco-dev and -tags mujoco (make mujoco, make test-mujoco)"
skip "$(line docs/mujoco.md 'go test -tags mujoco ./internal/env/mujoco/` (about')" "about 1 s" "needs libmujoco-dev (make test-mujoco)"
skip "$(line docs/cluster.md '77 s for a first run')" "Slurm end-to-end test, 56–112 s" "needs root and installs Slurm packages (scripts in docs/cluster.md)"
skip "$(line docs/performance.md '`make bench-numpy`')" "NumPy against smrl's decision" "needs python3 with NumPy (make bench-numpy, make bench-scale)"
skip "$(line docs/performance.md 'three rounds alternating with main')" "rows comparing a change with the main of 24–25 Nov" "historical: the other side is an old commit; the rows carry their date"
skip "$(line docs/control.md '| 1200 | 10⁻⁴ | **shipped**')" "acrobot feature-size table, 20–342 s of CPU a row" "ten runs of 1–6 min each; the commands are in docs/control.md"
skip "$(line docs/continuous-control.md '| pendulum | rss | oracle')" "per-step µs of 30 agent × planner × task runs" "hours of CPU; the per-decision benchmarks (CLAIMS_BENCH=1) measure the same steps"
skip "$(line docs/commands.md 'was 3.3× too high')" "the former ETA, 2.4 s for 0.7 s left" "describes the estimator smrl no longer uses"
skip "$(line docs/weighted-sm.md '3 min 52 s of CPU')" "the 100-repeat estimation sweep" "minutes of CPU, a one-off study"
skip "$(line docs/mcmc.md '| 8 | 160 |')" "MCMC MLE timings per dimension" "a study of several minutes; commands in docs/mcmc.md"
