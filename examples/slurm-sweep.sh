#!/bin/bash
# Run the planner ablation (configs/ablation-tau-rollouts.yaml: 15 grid
# points × 3 agents × 10 seeds × 50 episodes) as a Slurm job array of 4 tasks,
# then merge. smrl sweep splits the 450 (point, agent, seed) trials of the
# whole grid into the shards, so every task is busy even when points are
# small. It reads SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and
# SLURM_ARRAY_TASK_COUNT, so array ids need not start at 0 (here 1-4).
#
#   sbatch examples/slurm-sweep.sh            # from a clone: it reads configs/
#   # after the array finishes (or: sbatch --dependency=afterok:<jobid> ...)
#   smrl merge results/ablation-tau-rollouts/shard-*-of-4 --out results/ablation-tau-rollouts
#
# CONFIG=path/to/grid.yaml NAME=<its name:> sbatch ... sweeps another config
# (results/NAME/shard-*-of-4). A requeued task resumes
# its shard from the journals. scripts/slurm-e2e.sh runs this file on a real
# one-node cluster and checks the merge against a single-machine sweep.
#SBATCH --job-name=smrl-ablation
#SBATCH --array=1-4
#SBATCH --cpus-per-task=2
#SBATCH --mem=1G
#SBATCH --time=00:30:00
#SBATCH --requeue
set -euo pipefail
config=${CONFIG:-configs/ablation-tau-rollouts.yaml}
name=${NAME:-ablation-tau-rollouts}
shard=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0}))
out="results/${name}/shard-${shard}-of-${SLURM_ARRAY_TASK_COUNT}"
resume=""
[ -f "$out/sweep.yaml" ] && resume="--resume"
smrl sweep --config "$config" --workers "$SLURM_CPUS_PER_TASK" --out "$out" --no-plots $resume
