#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: installs what is missing, builds sluice, packs a synthetic
# city (once; about 730 MiB of pack from 512 MiB of float geometry, nearly
# three times the default pool), streams a 600-frame fly-through of it under
# budgets/default on the default device (lavapipe where there is no GPU; the
# host backend, with a notice, where there is no Vulkan device at all),
# prints the report and the verdict, and writes the timeline as an SVG;
# then renders a 12-frame fly-through of the same city with `sluice render`
# (3 frames and a contact sheet at 640x360 in build/main/render/; skipped,
# with a notice, where there is no Vulkan device). Its exit status is the
# run's (0 when every budget held), else the render's.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
cmake --preset default >/dev/null
cmake --build --preset default >/dev/null

sluice=build/default/tools/sluice
out=build/main
mkdir -p "$out"
pack=$out/city.pack
if ! "$sluice" inspect "$pack" >/dev/null 2>&1; then
    echo "packing a synthetic city into $pack (about a minute on 2 cores)"
    "$sluice" pack --synthetic city --size 512MiB -o "$pack" >/dev/null
fi
status=0
"$sluice" run "$pack" --profile budgets/default.profile --camera fly --frames 600 \
    --svg "$out/run.svg" --evict-log "$out/evict.log" || status=$?
echo "timeline: $out/run.svg; eviction log: $out/evict.log"
if "$sluice" render "$pack" --profile budgets/default.profile --camera fly --frames 12 --every 6 --size 640x360 \
    -o "$out/render" > "$out/render.txt" 2> "$out/render.err"; then
    grep '^render' "$out/render.txt"
    echo "frames: $out/render/frame-00000.png, frame-00006.png, frame-00011.png; report: $out/render.txt"
elif grep -q 'no Vulkan device\|no renderer' "$out/render.err"; then
    echo "render: skipped ($(head -1 "$out/render.err"))"
else
    cat "$out/render.err" >&2
    [ "$status" -ne 0 ] || status=1
fi
exit "$status"
