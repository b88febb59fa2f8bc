#!/usr/bin/env bash
# Renders the speed goals' figure set with one fogbank build and writes it as a record's
# figures.csv rows (benches/README.md, "Adding a record"), with a table of each figure against
# its goal. The goals are those of the open issues, on a GPU host at 1920x1080 with the
# default compute compositor and PNG frames: the temple (default, --samples 16, --samples 1),
# the moonlit scene, and the storm, valley and walkway with the default and with one sample.
#
#   cargo build --release
#   bash scripts/gpu-goals.sh target/release/fogbank /tmp/goals COMMIT
#   bash scripts/gpu-goals.sh target/release/fogbank /tmp/goals COMMIT --quick
#
# COMMIT is written into each row. `--quick` renders 320x180 and a few frames: a check that
# the script runs (on lavapipe too), not figures. Each scene first renders ten frames, so the
# driver has compiled its pipelines before anything is timed. The fluid step's figures come
# from `cargo bench --bench fluid` (benches/README.md). A goal missed is reported, not failed:
# the script exits 0 once every render ran.
set -euo pipefail
# The binary and the output folder as given, before moving to the repository's root.
fogbank=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
commit=$3
quick=${4:-}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$work}"

size=1920x1080
long=599
short=359
s16_last=299
if [ "$quick" = "--quick" ]; then
    size=320x180 long=5 short=5 s16_last=3
fi
threads=$(nproc)
csv="$out/figures.csv"
table="$out/goals.txt"
echo "benchmark,variant,size,threads,metric,value,unit,commit,notes" >"$csv"
printf '%-34s %10s %10s %8s %s\n' "render" "frames/s" "goal" "gpu ms" "bound" >"$table"

# One timed render: LABEL GOAL SCENE LAST_FRAME [ARGS...]. Writes its rate, its GPU time a
# frame and each pass's, and a table line.
timed() {
    local label=$1 goal=$2 scene=$3 last=$4
    shift 4
    "$fogbank" render "scenes/$scene.ron" --size "$size" --frames "0..$last" \
        --out "$work/frames" --stats --quiet "$@" 2>"$work/stats.txt"
    rm -rf "$work/frames"
    # The stats' lines "N frames in T s: R frames/s, bound by B" and "gpu passes, ms/frame:
    # NAME MS, ...".
    awk -v label="$label" -v goal="$goal" -v size="$size" -v threads="$threads" \
        -v commit="$commit" -v csv="$csv" -v table="$table" '
        function row(metric, value, unit, notes) {
            printf "render %s,this-build,%s,%s,%s,%s,%s,%s,%s\n", label, size, threads, metric,
                value, unit, commit, notes >>csv
        }
        / frames in .* frames\/s, bound by / {
            for (i = 1; i <= NF; i++) if ($i == "frames/s,") rate = $(i - 1)
            bound = $NF
        }
        /^gpu passes, ms\/frame:/ {
            sub(/^gpu passes, ms\/frame: /, "")
            n = split($0, passes, ", ")
            for (i = 1; i <= n; i++) {
                split(passes[i], pair, " ")
                pass_name[i] = pair[1]
                pass_ms[i] = pair[2]
                gpu_ms += pair[2]
            }
        }
        END {
            if (rate == "") { print "no stats line for " label > "/dev/stderr"; exit 1 }
            row("rate", rate, "frames/s", "bound by " bound)
            if (n > 0) {
                row("gpu passes", sprintf("%.3f", gpu_ms), "ms/frame", "timestamp queries")
                for (i = 1; i <= n; i++) row("pass " pass_name[i], pass_ms[i], "ms/frame", "")
            }
            verdict = (rate + 0 >= goal + 0) ? "met" : "MISSED"
            printf "%-34s %10s %10s %8.3f %s (%s)\n", label, rate, ">= " goal, gpu_ms, bound,
                verdict >>table
        }' "$work/stats.txt"
}

for scene in temple moonlit storm valley walkway; do
    "$fogbank" render "scenes/$scene.ron" --size "$size" --frames 0..9 --out "$work/warm" --quiet
done
rm -rf "$work/warm"

timed "temple frames 0..$long" 350 temple "$long"
timed "temple frames 0..$s16_last samples 16" 60 temple "$s16_last" --samples 16
timed "temple frames 0..$long samples 1" 400 temple "$long" --samples 1
timed "moonlit frames 0..$long" 300 moonlit "$long"
timed "moonlit frames 0..$long samples 1" 300 moonlit "$long" --samples 1
timed "storm frames 0..$short samples 1" 400 storm "$short" --samples 1
timed "storm frames 0..$short" 350 storm "$short"
timed "valley frames 0..$long samples 1" 400 valley "$long" --samples 1
timed "valley frames 0..$long" 350 valley "$long"
timed "walkway frames 0..$short samples 1" 400 walkway "$short" --samples 1
timed "walkway frames 0..$short" 350 walkway "$short"
cat "$table"
