#!/usr/bin/env bash
# Runs every test of sluice: installs what is missing (scripts/deps.sh),
# then builds and tests, each in its own build folder:
#   default  native build: unit, CLI, install and static checks
#   asan     AddressSanitizer + UndefinedBehaviorSanitizer, the whole suite
#   tsan     ThreadSanitizer (clang), the whole suite (the threaded tests matter)
#   aarch64  cross build, tests under qemu-aarch64
#   armhf    cross build (32-bit ARM), tests under qemu-arm
#   fuzz     libFuzzer targets (clang, ASan+UBSan), each for a bounded time
# Usage: scripts/test.sh [preset...]   (default: all of the above)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh --cross

presets=("$@")
[[ ${#presets[@]} -eq 0 ]] && presets=(default asan tsan aarch64 armhf fuzz)

for p in "${presets[@]}"; do
    echo "=== ${p} ==="
    start=$(date +%s)
    cmake --preset "$p" >/dev/null
    cmake --build --preset "$p"
    ctest --preset "$p"
    echo "=== ${p}: passed in $(( $(date +%s) - start )) s ==="
done
