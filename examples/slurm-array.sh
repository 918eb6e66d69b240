#!/bin/bash
# Run the paper's comparison with 100 seeds (or $SEEDS: sbatch passes your
# environment to the tasks) as a Slurm job array of 4 tasks, then merge. smrl
# reads SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT,
# so array ids need not start at 0 (here 1-4).
#
#   sbatch examples/slurm-array.sh            # or: SEEDS=20 sbatch ...
#   # after the array finishes (or: sbatch --dependency=afterok:<jobid> ...)
#   smrl merge results/synthetic/shard-*-of-4 --out results/synthetic
#
# A requeued task resumes its shard from the journal. scripts/slurm-e2e.sh runs
# this file on a real one-node cluster and checks the merge against a
# single-machine run.
#SBATCH --job-name=smrl-synthetic
#SBATCH --array=1-4
#SBATCH --cpus-per-task=2
#SBATCH --mem=1G
#SBATCH --time=00:10:00
#SBATCH --requeue
set -euo pipefail
shard=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0}))
out="results/synthetic/shard-${shard}-of-${SLURM_ARRAY_TASK_COUNT}"
resume=""
[ -f "$out/journal.jsonl" ] && resume="--resume"
smrl compare --seeds "${SEEDS:-100}" --workers "$SLURM_CPUS_PER_TASK" --out "$out" --no-plots $resume
