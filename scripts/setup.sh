#!/usr/bin/env bash
# Installs what fogbank needs to build and render on a Debian or Ubuntu machine without a GPU:
# Mesa's Vulkan drivers (lavapipe renders on the CPU), the Vulkan loader, ffmpeg for
# `--video clip.mp4` / `.webm`, and headless Chromium, in which the tests open
# `check --report`'s HTML page and `watch --serve`'s preview page. On a machine with a GPU
# driver these are harmless; fogbank
# prefers the real GPU.
set -euo pipefail

need=()
dpkg -s mesa-vulkan-drivers >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
dpkg -s libvulkan1 >/dev/null 2>&1 || need+=(libvulkan1)
command -v ffmpeg >/dev/null 2>&1 || need+=(ffmpeg)
command -v chromium >/dev/null 2>&1 || need+=(chromium)

if ((${#need[@]})); then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "setup: installing ${need[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo not found; install Rust from your distribution or rustup first" >&2
    exit 1
fi
