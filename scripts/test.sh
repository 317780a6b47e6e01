#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every test of sluice: installs what is missing (scripts/deps.sh),
# then builds and tests, each in its own build folder:
#   default  native build: unit, CLI, install and static checks, each fuzz
#            target's seed corpus replayed, and the conformance suite
#            (every profile in budgets/ against the workloads, label
#            conformance; its results in build/default/conformance.xml,
#            JUnit XML, and the rest of every preset's in
#            build/<preset>/junit.xml)
#   static   scripts/static.sh: the layout (scripts/format.sh --check), the
#            structure checks (ctest -L static: include layers, include and
#            call loops), clang-tidy and cppcheck over runtime/, platform/
#            and tools/ (on the default build's compile commands), then the runtime and platform libraries built Release (-O3,
#            warnings as errors: gcc's flow warnings differ at -O3)
#   memcheck the host unit tests and one Vulkan run under valgrind
#            (the default build; `ctest --preset memcheck`)
#   asan     AddressSanitizer + UndefinedBehaviorSanitizer, the whole suite
#            (-O1, as the sanitizers' documentation advises: at -O0 the
#            packer's error measurement made this step twice as long)
#   tsan     ThreadSanitizer (clang, -O1), the whole suite (the threaded
#            tests matter)
#   aarch64  cross build, tests under qemu-aarch64
#   armhf    cross build (32-bit ARM), tests under qemu-arm
#   baremetal the runtime freestanding (arm-none-eabi, newlib, no LZ4 or
#            meshopt) and the firmware image of firmware/, run under
#            qemu-system-arm: its report and eviction-log hash must equal
#            the Linux build's for the same pack, profile and camera path
#            (the default build's sluice writes the pack and compares;
#            it is built here when missing)
#   fuzz     libFuzzer targets (clang, ASan+UBSan), each for a bounded time
# Usage: scripts/test.sh [step...]   (default: all of the above, in that order)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh --cross

steps=("$@")
[[ ${#steps[@]} -eq 0 ]] && steps=(default static memcheck asan tsan aarch64 armhf baremetal fuzz)

for p in "${steps[@]}"; do
    echo "=== ${p} ==="
    start=$(date +%s)
    case "$p" in
    static)
        cmake --preset default >/dev/null
        scripts/static.sh
        cmake --preset release >/dev/null
        cmake --build --preset release --target sluice_runtime sluice_platform
        ;;
    baremetal)
        cmake --preset default >/dev/null
        cmake --build --preset default --target sluice
        cmake --preset baremetal >/dev/null
        cmake --build --preset baremetal
        ctest --preset baremetal --output-junit "$PWD/build/baremetal/junit.xml"
        ;;
    memcheck)
        cmake --preset default >/dev/null
        cmake --build --preset default
        ctest --preset memcheck
        ;;
    *)
        cmake --preset "$p" >/dev/null
        cmake --build --preset "$p"
        if [[ "$p" == default ]]; then
            # The conformance suite once, into its own JUnit file.
            ctest --preset default-rest --output-junit "$PWD/build/default/junit.xml"
            ctest --preset default -L conformance --output-junit "$PWD/build/default/conformance.xml"
        else
            ctest --preset "$p" --output-junit "$PWD/build/$p/junit.xml"
        fi
        ;;
    esac
    echo "=== ${p}: passed in $(( $(date +%s) - start )) s ==="
done
