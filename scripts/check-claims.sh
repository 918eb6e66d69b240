#!/usr/bin/env bash
# check-claims.sh: run the commands whose time the documentation states and
# print the measured time beside the claimed one (make check-claims).
#
# Every claim is measured as a newcomer meets it: in a fresh clone of this
# repository (git clone of the working tree's HEAD) with an empty Go build
# cache, so the first command's time includes compiling smrl and its
# modules (downloads come from the module cache, GOMODCACHE, as on a
# machine that has fetched them once). The later commands use the smrl it
# built. Claims marked long (minutes of CPU) run only with CLAIMS_LONG=1.
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
	printf '%s  claimed: %s  measured: %s s wall, %s s CPU  (%s)\n' "$where" "$claim" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')" "$*"
}

line() { grep -n -m1 -F -- "$2" "$repo/$1" | cut -d: -f1 | sed "s|^|$1:|"; }

echo "check-claims: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"

# README's first command, compile included (empty build cache).
measure "$(line README.md 'compile included')" "the first command, compile included" \
	go run ./cmd/smrl compare -q
go build -o "$work/smrl-bin" ./cmd/smrl
smrl=$work/smrl-bin
measure "$(line README.md 'compare` alone')" "compare alone, compiled" "$smrl" compare -q --out results/claims-compare
measure "$(line README.md 'three-episode version')" "pendulum, 2 seeds × 3 episodes" \
	"$smrl" run --config configs/pendulum.yaml --seeds 2 --episodes 3 --out results/claims-pendulum-short -q
measure "$(line README.md 'λ sweep')" "the README's λ sweep" \
	"$smrl" sweep --config configs/pendulum.yaml --agents sm --seeds 2 --episodes 3 --set lambda=log:1e-3:1e3:4 --out results/claims-lambda -q
measure "$(line README.md '15 points, 450 trials')" "the planner ablation sweep, figures included" \
	"$smrl" sweep --config configs/ablation-tau-rollouts.yaml --out results/claims-ablation -q
measure "$(line docs/sweeps.md '15 points')" "the planner ablation sweep" \
	"$smrl" sweep --config configs/ablation-tau-rollouts.yaml --out results/claims-ablation2 -q
measure "$(line docs/reproduction.md 'The sweep takes')" "the planner ablation, figures included" \
	"$smrl" sweep --config configs/ablation-tau-rollouts.yaml --out results/claims-ablation3 -q
measure "$(line docs/statistics.md 'used 1.326 s of CPU')" "compare --no-plots: 1.3 s of CPU" \
	"$smrl" compare --no-plots -q --out results/claims-compare-noplots

if [[ ${CLAIMS_LONG:-} != 1 ]]; then
	echo "(the long claims, the full pendulum comparison and go test ./..., run with CLAIMS_LONG=1)"
	exit 0
fi
measure "$(line README.md '10 seeds × 50 episodes) takes')" "full pendulum comparison" \
	"$smrl" run --config configs/pendulum.yaml --out results/claims-pendulum -q
measure "$(line docs/continuous-control.md 'of wall time and')" "full pendulum comparison, no figures" \
	"$smrl" run --config configs/pendulum.yaml --out results/claims-pendulum-nofig -q --no-plots
measure "$(line docs/development.md 'go test ./...`: ')" "go test ./..., fresh clone (compile included)" \
	go test -count=1 ./...
measure "$(line docs/development.md 'they take about')" "the documentation examples" \
	env SMRL_DOCS=1 go test -count=1 -run '^TestDocExamples$' ./cmd/smrl
