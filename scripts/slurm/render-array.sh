#!/bin/bash
# A Slurm job array that renders a scene in parts, each task one --chunk of the frames.
# Fill the cache first, then submit the array after it (from the project folder):
#   cache=$(sbatch --parsable --wrap "fogbank simulate scenes/temple.ron --cache cache/temple --quiet")
#   sbatch --dependency=afterok:$cache --gres=gpu:1 scripts/slurm/render-array.sh
# A preempted or killed task is simply submitted again (`--requeue` does it for preemption):
# --skip-existing keeps its finished frames. SCENE, CACHE, OUT and FOGBANK (the binary) may be
# set in the environment; EXTRA adds flags (e.g. "--size 1920x1080").
#SBATCH --array=0-9
#SBATCH --cpus-per-task=4
#SBATCH --requeue
set -euo pipefail
# shellcheck disable=SC2086 # EXTRA is a list of flags
"${FOGBANK:-fogbank}" render "${SCENE:-scenes/temple.ron}" \
    --cache "${CACHE:-cache/temple}" --out "${OUT:-out/temple}" \
    --chunk auto --skip-existing --threads "${SLURM_CPUS_PER_TASK:-1}" --quiet ${EXTRA:-}
