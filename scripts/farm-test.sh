#!/usr/bin/env bash
# Runs fogbank under a real scheduler: a single-node Slurm (slurmctld, slurmd and munge from
# the distribution's packages, on this machine only), the README's job array
# (scripts/slurm/render-array.sh) after a cache job, one task cancelled while it renders and
# submitted again with the same script (--skip-existing keeps what it finished), then checks
# that the frames are byte-identical to one local render and that no stray file is left.
# Needs root (it configures and starts the daemons) and a fogbank binary: FOGBANK, or
# target/debug/fogbank built here.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

need=()
for pkg in slurmctld slurmd slurm-client munge; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if ((${#need[@]})); then
    echo "farm-test: installing ${need[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
[ -n "${FOGBANK:-}" ] || { cargo build --locked --quiet; FOGBANK=$root/target/debug/fogbank; }
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

work=$(mktemp -d)
chmod 755 "$work"
stop() {
    [ -f "$work/slurmd.pid" ] && kill "$(cat "$work/slurmd.pid")" 2>/dev/null || true
    [ -f "$work/slurmctld.pid" ] && kill "$(cat "$work/slurmctld.pid")" 2>/dev/null || true
    sleep 1
    rm -rf "$work"
}
trap stop EXIT

# munge authenticates Slurm's messages; one key for the one node.
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge /etc/slurm
[ -f /etc/munge/munge.key ] || dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
chmod 400 /etc/munge/munge.key
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged

host=$(hostname -s)
conf=$work/slurm.conf
cat >"$conf" <<CONF
ClusterName=fogbank-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
mkdir -p "$work/state" "$work/spool"
export SLURM_CONF=$conf
/usr/sbin/slurmctld -f "$conf"
/usr/sbin/slurmd -f "$conf"
for _ in $(seq 30); do
    sinfo -h -o %t 2>/dev/null | grep -qx idle && break
    sleep 1
done
sinfo -h -o %t | grep -qx idle || { echo "farm-test: the Slurm node never came up" >&2; cat "$work"/*.log >&2; exit 1; }

# The job: a small, quick scene in four chunks.
frames=48 tasks=4
export FOGBANK SCENE=$root/tests/scenes/tiny.ron CACHE=$work/cache OUT=$work/out
export EXTRA="--set output.frames=$frames --size 96x54"
cache_job=$(sbatch --parsable --chdir "$work" --output "$work/cache.log" \
    --wrap "$FOGBANK simulate $SCENE --set output.frames=$frames --cache $CACHE --cache-every 6 --quiet")
array=$(sbatch --parsable --chdir "$work" --output "$work/task_%a.log" --cpus-per-task 1 \
    --array "0-$((tasks - 1))" --dependency "afterok:$cache_job" --export ALL \
    "$root/scripts/slurm/render-array.sh")
echo "farm-test: cache job $cache_job, array $array"

# Cancel task 1 once its first frame is on disk, as a preemption would, midway.
victim=${array}_1
first_of_victim=$(printf '%s/frame_%04d.png' "$OUT" $((frames / tasks)))
for _ in $(seq 1200); do
    state=$(squeue -h -j "$victim" -o %T 2>/dev/null || true)
    [ -z "$state" ] && break
    [ "$state" = RUNNING ] && [ -f "$first_of_victim" ] && break
    sleep 0.05
done
scancel --signal=TERM --full "$victim" 2>/dev/null || true
for _ in $(seq 300); do
    [ -z "$(squeue -h -j "$array" 2>/dev/null)" ] && break
    sleep 0.5
done
before=$(find "$OUT" -name 'frame_*.png' 2>/dev/null | wc -l)
echo "farm-test: after the cancel, $before of $frames frames are on disk"

# Resubmit the cancelled task with the same script.
# A one-task array numbers itself 1 of 1: give it the original array's count and start.
again=$(sbatch --parsable --chdir "$work" --output "$work/task_again.log" --cpus-per-task 1 \
    --array 1 --export ALL \
    --wrap "SLURM_ARRAY_TASK_COUNT=$tasks SLURM_ARRAY_TASK_MIN=0 $root/scripts/slurm/render-array.sh")
for _ in $(seq 300); do
    [ -z "$(squeue -h -j "$again" 2>/dev/null)" ] && break
    sleep 0.5
done
cat "$work"/task_*.log

# One local render to compare with.
"$FOGBANK" render "$SCENE" $EXTRA --out "$work/local" --quiet
if ! diff -r "$work/local" "$OUT"; then
    echo "farm-test: the farm's frames differ from a local render" >&2
    exit 1
fi
stray=$(find "$OUT" "$CACHE" -name '.*' -type f)
if [ -n "$stray" ]; then
    echo "farm-test: stray files left: $stray" >&2
    exit 1
fi
echo "farm-test: $frames frames from $tasks Slurm tasks (one cancelled and resubmitted) equal a local render; no stray file"
