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
measure "$(line README.md 'version took 0.8 s')" "pendulum, 2 seeds × 3 episodes: 0.8 s of CPU" \
	"$smrl" run --config configs/pendulum.yaml --seeds 2 --episodes 3 --out results/claims-pendulum-short -q
measure "$(line README.md 'λ sweep (the λ sweep')" "the README's λ sweep (no time claimed)" \
	"$smrl" sweep --config configs/quick.yaml --agents sm,oracle --seeds 5 --set lambda=log:1e1:1e5:5 --out results/claims-lambda -q
measure "$(line README.md '15 points, 450 trials')" "the planner ablation sweep: 19 s of CPU, figures included" \
	"$smrl" sweep --config configs/ablation-tau-rollouts.yaml --out results/claims-ablation -q
again "$(line docs/sweeps.md '15 points')" "the planner ablation sweep: 19 s of CPU with figures"
again "$(line docs/reproduction.md 'The sweep took')" "the planner ablation: 18.8 s of CPU, figures included"
measure "$(line docs/statistics.md 'used 1.326 s of CPU')" "compare --no-plots: 1.3 s of CPU" \
	"$smrl" compare --no-plots -q --out results/claims-compare-noplots

if [[ ${CLAIMS_LONG:-} != 1 ]]; then
	echo "(the long claims, the full pendulum comparison and go test ./..., run with CLAIMS_LONG=1)"
	exit 0
fi
measure "$(line README.md '10 seeds × 50 episodes) takes')" "13–18 s of wall time and 25–35 s of CPU" \
	"$smrl" run --config configs/pendulum.yaml --out results/claims-pendulum -q
measure "$(line docs/continuous-control.md 'of wall time and')" "14.8–17.0 s of wall time and 29.3–33.4 s of CPU, no figures" \
	"$smrl" run --config configs/pendulum.yaml --out results/claims-pendulum-nofig -q --no-plots
measure "$(line docs/development.md 'go test ./...`: ')" "255 s of CPU on a fresh clone, compile included" \
	go test -count=1 ./...
measure "$(line docs/development.md 'they take about')" "about 100 s" \
	env SMRL_DOCS=1 go test -count=1 -run '^TestDocExamples$' ./cmd/smrl
