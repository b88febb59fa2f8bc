#!/usr/bin/env bash
# Shows that two fogbank builds give the same bytes: the state hashes of a 600-frame simulate,
# the golden cases rendered as PNG (both compositors), the tiny scene, the fluid maps, and
# frames at 1280x720. A refactor that claims "behaviour unchanged" runs this against the build
# before it:
#
#   git worktree add /tmp/before <commit> && (cd /tmp/before && cargo build --release)
#   cargo build --release
#   bash scripts/compare-builds.sh /tmp/before/target/release/fogbank target/release/fogbank
#
# Prints one line per comparison and exits 1 when any output differs.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$work}"
differ=0

# Runs `fogbank ARGS… --out DIR` with both builds and compares the folders file by file.
same_files() {
    local name=$1
    shift
    "$old" "$@" --out "$work/old-$name" --quiet
    "$new" "$@" --out "$work/new-$name" --quiet
    if diff -r "$work/old-$name" "$work/new-$name" >/dev/null; then
        echo "same   $name ($(find "$work/new-$name" -type f | wc -l) files)"
    else
        echo "DIFFER $name"
        differ=1
    fi
}

for scene in "" tests/scenes/tiny.ron scenes/example.ron; do
    [ -z "$scene" ] || [ -f "$scene" ] || continue
    label=${scene:-temple}
    "$old" simulate $scene --frames 0..600 --json --quiet >"$work/old.jsonl" 2>/dev/null ||
        "$old" simulate $scene --json --quiet >"$work/old.jsonl"
    "$new" simulate $scene --frames 0..600 --json --quiet >"$work/new.jsonl" 2>/dev/null ||
        "$new" simulate $scene --json --quiet >"$work/new.jsonl"
    if cmp -s "$work/old.jsonl" "$work/new.jsonl"; then
        echo "same   simulate $label ($(wc -l <"$work/new.jsonl") frames)"
    else
        echo "DIFFER simulate $label"
        differ=1
    fi
done

for compositor in raster compute; do
    same_files "fog-$compositor" render --size 160x90 --frames 0,45,90 --maps --compositor "$compositor"
    for view in sheets flow fluid; do
        same_files "$view-$compositor" render --size 160x90 --frames 45 --view "$view" --compositor "$compositor"
    done
    same_files "fires-$compositor" render --size 160x90 --frames 30 --compositor "$compositor"
done
same_files tiny render tests/scenes/tiny.ron
same_files large render --size 1280x720 --frames 90,150
same_files maps maps --frames 0..120

exit $differ
