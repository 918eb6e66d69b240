#!/usr/bin/env bash
# bench-step.sh: issue 34's last target, measured the way docs/performance.md
# measures it. One real step of sm at d_s 17, d_a 6, D 2000
# (BenchmarkScaleStep in internal/runner: decision + statistics + refit
# share, thread CPU time, -cpu 1) of this tree, with the default
# arithmetic and with model.features.fma, alternated round by round with
# the same benchmark compiled against 68a1240 (the tree before issue 34).
# Each round prints the four steps, their ratios to 68a1240's step of the
# same round and cadence, and whether the round meets "≤ 3 ms and ≥ 4×";
# a summary counts the rounds that do and gives each cadence's medians
# over the rounds, and how many rounds meet the target at the issue's
# machine speed: ≥ 4× and ≤ 3 ms once the step is scaled by 13.4/(68a1240's
# h200 step of the round), the issue's "today 13.4 ms" being 68a1240's step
# at h200 (at h200 the two mean a ratio of at least 13.4/3 = 4.467×). The two binaries run in turn,
# 68a1240's first in odd rounds and last in even ones, so that a drift of
# the machine's speed within a round favours neither.
#
#   scripts/bench-step.sh [ROUNDS]      (make bench-step ROUNDS=n; default 3)
#
# BENCHTIME (default 2000x: two episodes at h1000, ten at h200) is the
# benchmarks' -test.benchtime. It needs the repository's history (in a
# shallow clone: git fetch --unshallow). Its files go to a temporary
# directory that it removes (and the builds to Go's build cache).
set -euo pipefail

if [ $# -gt 1 ]; then
	echo "bench-step: one argument, ROUNDS; got $#: $*" >&2
	exit 2
fi
rounds=${1:-3}
base=68a1240
benchtime=${BENCHTIME:-2000x}
if ! [[ $rounds =~ ^[0-9]{1,4}$ ]] || ((10#$rounds < 1)); then
	echo "bench-step: ROUNDS must be an integer from 1 to 9999, got '$rounds'" >&2
	exit 2
fi

if ! [[ $benchtime =~ ^([1-9][0-9]*x|[0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))$ ]] || [[ $benchtime =~ ^0+(\.0+)?[a-zµ]+$ ]]; then
	echo "bench-step: BENCHTIME must be a count like 2000x or a positive duration like 30s, got '$benchtime'" >&2
	exit 2
fi

if ! root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel 2>/dev/null); then
	echo "bench-step: $0 is not inside a git clone of smrl" >&2
	exit 1
fi
if ! git -C "$root" cat-file -e "$base^{commit}" 2>/dev/null; then
	echo "bench-step: commit $base is not in this clone's history (git fetch --unshallow)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT # replaced by the summary's trap below

# The benchmark file of this tree, compiled against 68a1240: that tree has
# no fma key (so it runs ScaleStep only, with fma false) and took the
# confidence straight from the config. Each edit must apply exactly once.
mkdir -p "$tmp/old"
git -C "$root" archive "$base" | tar -x -C "$tmp/old"
bench=internal/runner/scale_bench_test.go
cp "$root/$bench" "$tmp/old/$bench"
mkdir -p "$tmp/old/internal/runner/testdata"
cp "$root/internal/runner/testdata/scale-lq17.yaml" "$tmp/old/internal/runner/testdata/"
edit() { # edit FROM TO: replace the one occurrence of FROM in the old tree's copy
	if [ "$(grep -cF -- "$1" "$tmp/old/$bench")" != 1 ]; then
		echo "bench-step: $bench no longer has exactly one '$1'; update this script's edits for $base" >&2
		exit 1
	fi
	FROM=$1 TO=$2 perl -0pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$tmp/old/$bench"
}
edit 'Confidence: agent.ConfidenceOf(c)' 'Confidence: c.Confidence'
edit 'r, ok := m.Model.Features.(*expfam.RFF); !ok || r.FMA != fma' '_, ok := m.Model.Features.(*expfam.RFF); !ok || fma'

echo "building $base's and this tree's benchmark binaries"
(cd "$tmp/old" && go test -c -o "$tmp/old.test" ./internal/runner)
(cd "$root" && go test -c -o "$tmp/new.test" ./internal/runner)

# run BIN PATTERN: the benchmark lines of one run, in internal/runner (the
# benchmark reads testdata/ relative to it).
run() {
	local out
	if ! out=$(cd "$1" && "$2" -test.run '^$' -test.bench "$3" -test.benchtime "$benchtime" -test.cpu 1 2>&1); then
		printf 'bench-step: %s -test.bench %s failed:\n%s\n' "$2" "$3" "$out" >&2
		exit 1
	fi
	if ! grep '^Benchmark' <<<"$out"; then
		printf 'bench-step: %s -test.bench %s printed no benchmark:\n%s\n' "$2" "$3" "$out" >&2
		exit 1
	fi
}
# ms NAME: the ms/step of sub-benchmark NAME in the lines on stdin.
ms() { awk -v n="$1" '$1 ~ "^"n"$" { for (i = 2; i < NF; i++) if ($(i+1) == "ms/step") print $i }'; }

tree=$(git -C "$root" describe --always --dirty)
echo "date $(date -u '+%Y-%m-%d %H:%M UTC'), $tree against $base, benchtime $benchtime, $(nproc) CPUs"
printf '%-6s %-5s %-24s %-13s %-13s %s\n' round h "$base ms" "default" "fma" "meets ≤ 3 ms and ≥ 4×"
met_default=0
met_fma=0
cells=0
rounds_done=0
# summary: the count of rounds meeting the target, then per cadence the
# medians and the rounds that meet it at the issue's speed, from the
# rows-h200 and rows-h1000 files ("68a1240 default fma gauge" per round).
summary() {
	echo "met: default arithmetic in $met_default of $cells round-cadences, model.features.fma in $met_fma of $cells"
	local h
	for h in h200 h1000; do
		awk -v h="$h" -v base="$base" '
		function median(x, n,    i, j, t) {
			for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j-1] > x[j]; j--) { t = x[j]; x[j] = x[j-1]; x[j-1] = t }
			return n % 2 ? x[(n+1)/2] : (x[n/2] + x[n/2+1]) / 2
		}
		{ n++; o[n] = $1 + 0; d[n] = $2 + 0; f[n] = $3 + 0; rd[n] = $1 / $2; rf[n] = $1 / $3
		  k = 13.4 / $4
		  sd += ($1 / $2 >= 4 && $2 * k <= 3); sf += ($1 / $3 >= 4 && $3 * k <= 3) }
		END {
			printf "median %-5s %s %.2f ms, default %.3f ms (%.3fx), fma %.3f ms (%.3fx) over %d rounds\n", h, base, median(o, n), median(d, n), median(rd, n), median(f, n), median(rf, n), n
			printf "       %-5s at the issue'"'"'s speed (steps scaled to 68a1240 h200 = 13.4 ms): default meets it in %d of %d rounds, fma in %d of %d\n", h, sd, n, sf, n
		}' "$tmp/rows-$h"
	done
}
# A round that fails ends the script (set -e); the rounds before it keep
# their summary, on stderr.
trap 'status=$?; if ((status != 0 && rounds_done > 0)); then echo "bench-step: stopped after $rounds_done rounds; their summary:" >&2; summary >&2; fi; rm -rf "$tmp"' EXIT
for r in $(seq "$rounds"); do
	load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
	if ((r % 2)); then
		old=$(run "$tmp/old/internal/runner" "$tmp/old.test" 'ScaleStep$')
		new=$(run "$root/internal/runner" "$tmp/new.test" 'ScaleStep(FMA)?$')
	else
		new=$(run "$root/internal/runner" "$tmp/new.test" 'ScaleStep(FMA)?$')
		old=$(run "$tmp/old/internal/runner" "$tmp/old.test" 'ScaleStep$')
	fi
	for h in h200 h1000; do
		o=$(ms "BenchmarkScaleStep/$h" <<<"$old")
		d=$(ms "BenchmarkScaleStep/$h" <<<"$new")
		f=$(ms "BenchmarkScaleStepFMA/$h" <<<"$new")
		if [ -z "$o" ] || [ -z "$d" ] || [ -z "$f" ]; then
			echo "bench-step: round $r: no ms/step for $h in the benchmarks' output" >&2
			exit 1
		fi
		verdict=$(awk -v o="$o" -v d="$d" -v f="$f" 'BEGIN {
			md = (d <= 3 && o / d >= 4); mf = (f <= 3 && o / f >= 4)
			printf "%d %d %.3fx %.3fx", md, mf, o / d, o / f }')
		read -r vd vf rd rf <<<"$verdict"
		if [ "$h" = h200 ]; then
			gauge=$o # the round's machine speed: 68a1240's h200 step
		fi
		echo "$o $d $f $gauge" >>"$tmp/rows-$h"
		met_default=$((met_default + vd))
		met_fma=$((met_fma + vf))
		cells=$((cells + 1))
		says="neither"
		if [ "$vd" = 1 ] && [ "$vf" = 1 ]; then
			says="both"
		elif [ "$vf" = 1 ]; then
			says="fma"
		elif [ "$vd" = 1 ]; then
			says="default"
		fi
		printf '%-6s %-5s %-24s %-13s %-13s %s\n' "$r" "$h" "$o (load $load)" "$d ($rd)" "$f ($rf)" "$says"
	done
	rounds_done=$r
done
summary
