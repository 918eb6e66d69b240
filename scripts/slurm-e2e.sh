#!/usr/bin/env bash
# End-to-end test of examples/slurm-array.sh and examples/slurm-sweep.sh on a
# real one-node Slurm cluster.
#
#   sudo scripts/slurm-e2e.sh        # or: sudo make slurm-e2e
#
# Run as root on a Debian-like machine. It
#   1. installs slurm-wlm and munge with apt-get if they are missing;
#   2. creates /etc/munge/munge.key if it is missing (owner munge, mode 0400)
#      and makes sure munged will accept it;
#   3. writes a private slurm.conf for this host (its hostname, CPUs and memory
#      as `slurmd -C` reads them; process tracking and task plugins that need
#      no cgroups and no systemd) with state, spool, logs and munge socket in a
#      scratch directory, and its own ports, so it never meets a system Slurm;
#   4. starts munged, slurmctld and slurmd in the background and waits for the
#      node to be idle;
#   5. builds bin/smrl, submits the example (a 4-task array) with
#      `sbatch --wait` from a scratch work directory with bin/ on PATH, merges
#      the 4 shards with `smrl merge`, runs the same comparison unsharded on
#      this machine with one worker, and requires episodes.csv and summary.csv
#      to be byte-identical (cmp); then the same for examples/slurm-sweep.sh
#      (the planner ablation) against `smrl sweep` on one machine: sweep.csv
#      and every point's episodes.csv and summary.csv;
#   6. on exit, whatever happened, cancels its jobs and stops the daemons it
#      started, by PID. On failure it prints the Slurm logs and job output.
#
# It is idempotent: it installs nothing that is there, and the daemons of an
# earlier run that did not get to clean up (kill -9) are found by a token in
# their environment and stopped first.
#
# Environment:
#   E2E_DIR      scratch directory (default /var/tmp/smrl-slurm-e2e); wiped at
#                the start of each run, and refused unless this script made it
#   SEEDS        seeds of the comparison (default 100, as in the example)
#   SWEEP_SEEDS, SWEEP_EPISODES
#                seeds and episodes of the sweep (default: the ablation
#                config's own, 10 and 50); when set, the sweep runs a copy of
#                configs/ablation-tau-rollouts.yaml with these two lines
#                changed, on Slurm and on one machine alike (.ci/run sets
#                them, and SEEDS, so the check fits in the CI's time bound)
#   E2E_PORT     slurmctld port (default 16817); slurmd listens on the next one
#   E2E_TIMEOUT  seconds the job array may take (default 1200)
set -euo pipefail
umask 022
export PATH="$PATH:/usr/sbin:/sbin"

t0=$(date +%s)
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(realpath -m "${E2E_DIR:-/var/tmp/smrl-slurm-e2e}")
seeds=${SEEDS:-100}
sweep_config=$repo/configs/ablation-tau-rollouts.yaml
port=${E2E_PORT:-16817}
job_timeout=${E2E_TIMEOUT:-1200}
key=/etc/munge/munge.key
marker=.made-by-smrl-slurm-e2e

say() { printf 'slurm-e2e: %s\n' "$*"; }
usage_error() {
	printf 'slurm-e2e: %s\n' "$*" >&2
	exit 2
}
fail() {
	printf 'slurm-e2e: FAIL: %s\n' "$*" >&2
	exit 1
}
since() { echo $(($(date +%s) - $1)); }

[ "$(id -u)" = 0 ] || usage_error "must run as root (it installs slurm-wlm and munge and starts their daemons): sudo make slurm-e2e"
for v in SEEDS SWEEP_SEEDS SWEEP_EPISODES E2E_PORT E2E_TIMEOUT; do
	case ${!v-1} in '' | *[!0-9]* | 0) usage_error "$v=${!v}: want a positive integer" ;; esac
done
if [ -e "$dir" ] && [ ! -e "$dir/$marker" ] && [ -n "$(ls -A "$dir" 2>/dev/null || echo file)" ]; then
	usage_error "E2E_DIR=$dir exists and was not made by this script: choose another directory"
fi

# State the EXIT trap acts on; each is set once the thing exists.
made_policy="" munged_pid="" ctld_pid="" slurmd_pid="" token="" cluster_up=""
policy=/usr/sbin/policy-rc.d

# token_pids prints the processes whose environment holds E2E_CLUSTER=$1: the
# daemons one run of this script started, their slurmstepd and the jobs.
token_pids() {
	local p
	for p in /proc/[0-9]*; do
		grep -qxzF "E2E_CLUSTER=$1" "$p/environ" 2>/dev/null && echo "${p#/proc/}"
	done
	return 0
}

# alive reports whether PID $1 runs (a zombie does not).
alive() {
	[ -r "/proc/$1/stat" ] || return 1
	local st
	st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[ "${st%% *}" != Z ]
}

# stop_pids sends SIGTERM to the given PIDs, gives them 5 s, then SIGKILL,
# and reaps those that are this shell's children. It never fails (set -e).
stop_pids() {
	local p any
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null || true
	for _ in $(seq 50); do
		any=""
		for p in "$@"; do alive "$p" && any=1; done
		[ -n "$any" ] || break
		sleep 0.1
	done
	for p in "$@"; do
		if alive "$p"; then
			say "pid $p ignored SIGTERM, killing it"
			kill -KILL "$p" 2>/dev/null || true
		fi
	done
	for p in "$@"; do wait "$p" 2>/dev/null || true; done
}

dump_logs() {
	local f
	echo "---- slurm-e2e diagnostics (scratch: $dir) ----" >&2
	if [ -n "$cluster_up" ] && alive "$ctld_pid"; then
		sinfo -N -l >&2 2>&1
		scontrol show job >&2 2>&1
	fi
	for f in "$dir"/log/* "$dir"/work/slurm-*.out; do
		[ -f "$f" ] || continue
		echo "---- $f (last 60 lines)" >&2
		tail -n 60 "$f" >&2
	done
	echo "---- end of diagnostics" >&2
}

cleanup() {
	local rc=$?
	set +e
	trap - EXIT INT TERM
	[ "$rc" = 0 ] || [ -z "$token" ] || dump_logs
	if [ -n "$ctld_pid" ] && alive "$ctld_pid"; then
		# Jobs first: slurmstepd and the job steps outlive slurmd.
		scancel --user=root 2>/dev/null
		for _ in $(seq 60); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.5
		done
	fi
	stop_pids $slurmd_pid
	stop_pids $ctld_pid
	stop_pids $munged_pid
	if [ -n "$token" ]; then
		mapfile -t left < <(token_pids "$token")
		stop_pids "${left[@]}"
	fi
	[ -z "$made_policy" ] || rm -f "$policy"
	if [ "$rc" = 0 ]; then
		say "PASS in $(since "$t0") s"
	elif [ "$rc" != 2 ]; then
		say "FAILED (exit $rc) after $(since "$t0") s${token:+; daemons stopped, logs and results kept in $dir}"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# One run at a time per scratch directory.
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock -n 9 || usage_error "another slurm-e2e run holds $dir.lock"

# 1. Packages.
t=$(date +%s)
need=()
for p in slurm-wlm munge; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	command -v apt-get >/dev/null || fail "${need[*]} missing and there is no apt-get: install them by hand"
	say "installing ${need[*]}"
	# The packages' maintainer scripts would start daemons this script does
	# not own; a policy-rc.d that denies it (only if the machine has none).
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\n# slurm-e2e: no service starts during its apt-get install\nexit 101\n' >"$policy"
		chmod 755 "$policy"
		made_policy=1
	fi
	apt-get update -qq
	# --no-install-recommends: 9 packages instead of 43 (no hdf5, influxdb,
	# rrd, ipmi, ROCm plugins), about 20 s.
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
	if [ -n "$made_policy" ]; then
		rm -f "$policy"
		made_policy=""
	fi
	say "installed in $(since "$t") s"
fi
for c in munged munge unmunge slurmctld slurmd sbatch squeue scancel sinfo; do
	command -v "$c" >/dev/null || fail "$c not found after installing slurm-wlm and munge"
done

# 2. Munge key: munged accepts only a key its user owns that nobody else can read.
if [ ! -e "$key" ]; then
	say "creating $key"
	install -d -m 0700 -o munge -g munge "$(dirname "$key")"
	mungekey --create --keyfile="$key"
	chown munge:munge "$key"
	chmod 0400 "$key"
fi
[ "$(stat -c %U "$key")" = munge ] || chown munge:munge "$key"
[ $((0$(stat -c %a "$key") & 077)) = 0 ] || chmod go-rwx "$key"

# 3. Scratch directory (checked above to be ours or empty); an earlier run's
# leftovers are stopped first.
if [ -f "$dir/token" ]; then
	mapfile -t old < <(token_pids "$(cat "$dir/token")")
	if [ ${#old[@]} -gt 0 ]; then
		say "stopping an earlier run's processes: ${old[*]}"
		stop_pids "${old[@]}"
	fi
fi
rm -rf "$dir"
mkdir -p "$dir"/{etc,log,run,state,spool,work}
touch "$dir/$marker"
install -d -m 0755 -o munge -g munge "$dir/munge"
token=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
echo "$token" >"$dir/token"

node=$(slurmd -C | head -n 1) || fail "slurmd -C could not read this host's hardware"
case $node in NodeName=*CPUs=*RealMemory=*) ;; *) fail "unexpected slurmd -C output: $node" ;; esac
cpus=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$node")
mem=$(sed -n 's/.* RealMemory=\([0-9]*\).*/\1/p' <<<"$node")
export SLURM_CONF="$dir/etc/slurm.conf"
cat >"$SLURM_CONF" <<EOF
# Written by scripts/slurm-e2e.sh: a private one-node cluster for its test.
ClusterName=smrle2e
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
# Root, as the jobs are root's: no file in the scratch directory needs another owner.
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
PlugStackConfig=$dir/etc/plugstack.conf
# No cgroups, no systemd: containers and small VMs have neither.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
# Every finished job and array task, with its state and exit code, in a file.
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.txt
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
ReturnToService=2
MailProg=/bin/true
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=e2e Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
: >"$dir/etc/plugstack.conf"

# 4. smrl, for the jobs and the single-machine run.
t=$(date +%s)
make -s -C "$repo" build
export PATH="$repo/bin:$PATH"
say "smrl built in $(since "$t") s: $(command -v smrl)"

# 5. Daemons, in the foreground of background jobs so that $! is their PID.
t=$(date +%s)
env E2E_CLUSTER="$token" setpriv --reuid=munge --regid=munge --init-groups \
	munged --foreground --key-file="$key" --socket="$dir/munge/munge.socket" \
	--pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munged.seed" \
	>"$dir/log/munged.log" 2>&1 9>&- &
munged_pid=$!
for _ in $(seq 100); do
	munge -S "$dir/munge/munge.socket" -n 2>/dev/null | unmunge -S "$dir/munge/munge.socket" >/dev/null 2>&1 && break
	alive "$munged_pid" || fail "munged exited"
	sleep 0.1
done
munge -S "$dir/munge/munge.socket" -n | unmunge -S "$dir/munge/munge.socket" >/dev/null ||
	fail "munge credentials do not round-trip through $dir/munge/munge.socket"

env E2E_CLUSTER="$token" slurmctld -D -i -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 9>&- &
ctld_pid=$!
env E2E_CLUSTER="$token" slurmd -D -f "$SLURM_CONF" >"$dir/log/slurmd.out" 2>&1 9>&- &
slurmd_pid=$!
cluster_up=1
state=""
for _ in $(seq 120); do
	alive "$ctld_pid" || fail "slurmctld exited"
	alive "$slurmd_pid" || fail "slurmd exited"
	state=$(sinfo -h -N -o %t 2>/dev/null || true)
	[ "$state" = idle ] && break
	sleep 0.5
done
[ "$state" = idle ] || fail "node not idle after 60 s (state: ${state:-none})"
say "cluster up in $(since "$t") s: $node"

# tasks_ok JOBID checks in the job completion log that all 4 tasks of the
# array JOBID completed with exit code 0: sbatch --wait sees a task's exit
# code only while slurmctld still holds its record (MinJobAge).
tasks_ok() {
	awk -v job="$1" '
		{
			state = ""; array = ""; task = ""; code = ""
			for (i = 1; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] == "JobState") state = kv[2]
				else if (kv[1] == "ArrayJobId") array = kv[2]
				else if (kv[1] == "ArrayTaskId") task = kv[2]
				else if (kv[1] == "ExitCode") code = kv[2]
			}
			if (array != job) next
			printf "slurm-e2e:   task %s: %s, exit code %s\n", task, state, code
			if (state == "COMPLETED" && code == "0:0") ok[task] = 1
		}
		END { n = 0; for (t in ok) n++; exit n == 4 ? 0 : 1 }
	' "$dir/log/jobcomp.txt" 2>/dev/null
}

# 6. Submit, merge, compare.
cd "$dir/work"
extra=()
# The example asks for 2 CPUs and 1 GiB per task; a smaller node could never
# run it as it is.
[ "$cpus" -ge 2 ] || extra+=(--cpus-per-task="$cpus")
[ "$mem" -ge 1024 ] || extra+=(--mem="${mem}M")
t=$(date +%s)
say "sbatch --wait examples/slurm-array.sh (SEEDS=$seeds)"
# sbatch hands its whole environment to the tasks (PATH with bin/, SEEDS, and
# the token). Not --export=ALL,VAR=...: anything but plain ALL makes slurmd
# run `su - root` to load a login environment, 2 s per task.
sbatch_rc=0
SEEDS=$seeds E2E_CLUSTER=$token timeout "$job_timeout" sbatch --wait --parsable \
	"${extra[@]}" "$repo/examples/slurm-array.sh" >"$dir/log/sbatch.out" 2>&1 9>&- || sbatch_rc=$?
jobid=$(head -n 1 "$dir/log/sbatch.out")
jobid=${jobid%%;*}
say "job array $jobid: sbatch returned after $(since "$t") s with exit code $sbatch_rc"
tasks_ok "$jobid" || bad_tasks=no
[ "$sbatch_rc" = 0 ] || fail "sbatch --wait exited $sbatch_rc (a task failed, or 124: the array took over E2E_TIMEOUT=$job_timeout s)"
[ -z "${bad_tasks:-}" ] || fail "not all 4 array tasks completed with exit code 0 (see $dir/log/jobcomp.txt)"
for i in 0 1 2 3; do
	[ -s "results/synthetic/shard-$i-of-4/journal.jsonl" ] || fail "shard $i of 4 wrote no journal"
done

# The merge exactly as the example's header gives it.
smrl merge results/synthetic/shard-*-of-4 --out results/synthetic --no-plots -q ||
	fail "smrl merge failed"

# One worker, where the tasks had 2: the output must not depend on it either.
t=$(date +%s)
env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_MIN -u SLURM_ARRAY_TASK_COUNT -u JOB_COMPLETION_INDEX \
	smrl compare --seeds "$seeds" --workers 1 --out "$dir/work/local" --no-plots -q ||
	fail "the single-machine smrl compare failed"
say "single-machine run done in $(since "$t") s"

for f in episodes.csv summary.csv; do
	cmp "results/synthetic/$f" "local/$f" ||
		fail "$f of the merged Slurm shards differs from the single-machine run's ($dir/work/results/synthetic/$f vs $dir/work/local/$f)"
	say "$f identical: $(wc -l <"local/$f") lines, sha256 $(sha256sum <"local/$f" | cut -c1-16)"
done

# 7. The sweep example: the planner ablation as a 4-task array, merged, and
# compared with the same sweep on one machine, point by point.
if [ -n "${SWEEP_SEEDS:-}${SWEEP_EPISODES:-}" ]; then
	sed -e "s/^seeds: .*/seeds: ${SWEEP_SEEDS:-10}/" -e "s/^episodes: .*/episodes: ${SWEEP_EPISODES:-50}/" \
		"$sweep_config" >"$dir/work/ablation-tau-rollouts.yaml"
	sweep_config=$dir/work/ablation-tau-rollouts.yaml
	grep -q "^seeds: ${SWEEP_SEEDS:-10}$" "$sweep_config" && grep -q "^episodes: ${SWEEP_EPISODES:-50}$" "$sweep_config" ||
		fail "could not set seeds and episodes in the copy of configs/ablation-tau-rollouts.yaml"
fi
t=$(date +%s)
say "sbatch --wait examples/slurm-sweep.sh (configs/ablation-tau-rollouts.yaml, $(grep '^seeds:' "$sweep_config"), $(grep '^episodes:' "$sweep_config"))"
sbatch_rc=0
CONFIG=$sweep_config E2E_CLUSTER=$token timeout "$job_timeout" sbatch --wait --parsable \
	"${extra[@]}" "$repo/examples/slurm-sweep.sh" >"$dir/log/sbatch-sweep.out" 2>&1 9>&- || sbatch_rc=$?
jobid=$(head -n 1 "$dir/log/sbatch-sweep.out")
jobid=${jobid%%;*}
say "job array $jobid: sbatch returned after $(since "$t") s with exit code $sbatch_rc"
tasks_ok "$jobid" || bad_sweep_tasks=no
[ "$sbatch_rc" = 0 ] || fail "sbatch --wait of the sweep exited $sbatch_rc"
[ -z "${bad_sweep_tasks:-}" ] || fail "not all 4 sweep array tasks completed with exit code 0 (see $dir/log/jobcomp.txt)"
# The merge's warnings (agents that never played an action: the ablation's
# τ = 1 points) are counted here, not printed once per agent and seed.
smrl merge results/ablation-tau-rollouts/shard-*-of-4 --out results/ablation-tau-rollouts --no-plots -q 2>"$dir/log/merge-sweep.err" ||
	fail "smrl merge of the sweep shards failed: $(tail -n 5 "$dir/log/merge-sweep.err")"
say "merge of the sweep: $(grep -c '^warning' "$dir/log/merge-sweep.err" || true) warnings ($dir/log/merge-sweep.err)"
t=$(date +%s)
env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_MIN -u SLURM_ARRAY_TASK_COUNT -u JOB_COMPLETION_INDEX \
	smrl sweep --config "$sweep_config" --workers 1 --out "$dir/work/local-sweep" --no-plots -q 2>"$dir/log/local-sweep.err" ||
	fail "the single-machine smrl sweep failed: $(tail -n 5 "$dir/log/local-sweep.err")"
say "single-machine sweep done in $(since "$t") s"
cmp results/ablation-tau-rollouts/sweep.csv local-sweep/sweep.csv ||
	fail "sweep.csv of the merged Slurm shards differs from the single-machine sweep's"
points=0
for p in local-sweep/*/; do
	p=$(basename "$p")
	for f in episodes.csv summary.csv; do
		cmp "results/ablation-tau-rollouts/$p/$f" "local-sweep/$p/$f" ||
			fail "$p/$f of the merged sweep differs from the single-machine sweep's"
	done
	points=$((points + 1))
done
[ "$points" = 15 ] || fail "the sweep has $points point directories, want 15"
say "sweep identical: sweep.csv and the episodes.csv and summary.csv of all $points points"

