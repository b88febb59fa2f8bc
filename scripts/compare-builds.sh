#!/usr/bin/env bash
# Shows that two fogbank builds give the same bytes: the state hashes of a 600-frame simulate,
# the golden cases rendered as PNG (both compositors), the tiny scene, the fluid maps, frames
# at 1280x720, and the pixels of EXR frames and fog layers. A refactor that claims "behaviour
# unchanged" runs this against the build before it:
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

# EXR files may change in their compression; their pixels must not. ffmpeg decodes both to
# raw 32-bit floats.
if command -v ffmpeg >/dev/null 2>&1; then
    for build in old new; do
        exe=$old
        [ "$build" = new ] && exe=$new
        "$exe" render --size 320x180 --frames 30 --format exr --layers --set fog.sigma=0 \
            --out "$work/$build-exr" --quiet
    done
    for name in frame_0030.exr fog_0030.exr; do
        for build in old new; do
            ffmpeg -v error -i "$work/$build-exr/$name" -f rawvideo -pix_fmt gbrapf32le - \
                >"$work/$build-$name.raw"
        done
        if [ -s "$work/new-$name.raw" ] && cmp -s "$work/old-$name.raw" "$work/new-$name.raw"; then
            echo "same   pixels of $name ($(stat -c %s "$work/old-exr/$name") -> $(stat -c %s "$work/new-exr/$name") bytes)"
        else
            echo "DIFFER pixels of $name"
            differ=1
        fi
    done
fi

exit $differ
