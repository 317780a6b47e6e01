#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_qemu.sh QEMU FIRMWARE.ELF SLUICE PACK RUN-ARGS...: runs the bare-metal
# image under qemu-system-arm and compares its report line (frames,
# requests, loads, evictions, eviction-log entries and hash) with the one
# the Linux build's `sluice run PACK RUN-ARGS --json` gives for the same
# pack, profile and camera path. The run must evict, or it proves nothing.
# run_qemu.sh --refused MESSAGE QEMU FIRMWARE.ELF: the image must fail
# (qemu exit 1) with "firmware: MESSAGE" as a line of its output.
#
# The machine: -M virt with a Cortex-A15 (ARMv7-A: LDREXD, so the runtime's
# 64-bit atomics are lock-free without libatomic), 64 MiB of RAM (the image
# takes under 8), output and exit through semihosting.
set -euo pipefail

fail() { echo "run_qemu.sh: $*" >&2; exit 1; }

refused=""
if [[ "${1:-}" == "--refused" ]]; then
    refused=$2
    shift 2
fi
qemu=$1 elf=$2

rc=0
out=$(timeout 60 "$qemu" -M virt -cpu cortex-a15 -m 64M -nographic -monitor none -serial none -nic none -semihosting \
      -kernel "$elf" </dev/null 2>&1) || rc=$?
echo "$out"
if [[ -n "$refused" ]]; then
    [[ $rc -eq 1 ]] || fail "the firmware should have failed (qemu exit 1), not exited $rc"
    grep -qxF "firmware: $refused" <<<"$out" || fail "no line 'firmware: $refused'"
    echo "run_qemu.sh: the firmware failed as it should"
    exit 0
fi
[[ $rc -eq 0 ]] || fail "the firmware failed under qemu (exit $rc)"
sluice=$3 pack=$4
shift 4
fw=$(grep '^report: ' <<<"$out") || fail "the firmware printed no report line"

json=$("$sluice" run "$pack" "$@" --json) || fail "sluice run failed on Linux"
linux=$(python3 -c '
import json, sys
d = json.load(sys.stdin)
s, e = d["stream"], d["eviction_log"]
print("report: frames %d, requests %d, refused %d, loads %d, evictions %d, failures %d, eviction log %d entries, hash %s"
      % (d["frames"], s["requests"], s["refused"], s["loads"], s["evictions"], s["failures"], e["entries"], e["hash"]))
' <<<"$json")
echo "linux:  ${linux#report: }"
echo "qemu:   ${fw#report: }"
[[ "$fw" == "$linux" ]] || fail "the firmware's report differs from the Linux build's"
evictions=$(sed -E 's/.*evictions ([0-9]+),.*/\1/' <<<"$fw")
[[ $evictions -gt 0 ]] || fail "the run evicted nothing: the profile no longer exercises eviction"
echo "run_qemu.sh: the firmware's eviction-log hash equals the Linux build's"
