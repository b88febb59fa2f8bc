#!/usr/bin/env bash
# fogbank's test command: installs the test dependencies (lavapipe), checks formatting and lints,
# runs every test (unit, CLI, golden images), then renders and checks the default scene the way
# a user would.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
# setup.sh installed ffmpeg: the video tests must run, not skip.
export FOGBANK_REQUIRE_FFMPEG=1
# Mesa's Vulkan drivers look for a Wayland display and complain when this is unset (the binary
# sets it for itself; the library's own GPU tests run without it).
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

cargo fmt --all -- --check
cargo clippy --all-targets --locked -- -D warnings
cargo test --locked

# The way a user checks a scene in their own CI: render it and compare with the references.
cargo run --quiet --locked -- check tests/scenes/tiny.ron --golden tests/golden/tiny --quiet

# The GPU host's figure script still runs (tiny pictures; no figures are kept).
bash scripts/gpu-goals.sh target/debug/fogbank "$(mktemp -d)" ci --quick >/dev/null

# A real scheduler: fogbank under a single-node Slurm (needs root to start the daemons).
if [ "$(id -u)" -eq 0 ]; then
    bash scripts/farm-test.sh
elif command -v sudo >/dev/null 2>&1; then
    sudo --preserve-env=PATH,XDG_RUNTIME_DIR FOGBANK="$PWD/target/debug/fogbank" bash scripts/farm-test.sh
else
    echo "skipped scripts/farm-test.sh: it needs root to start Slurm's daemons" >&2
    if [ "${CI:-}" = true ]; then exit 1; fi
fi
