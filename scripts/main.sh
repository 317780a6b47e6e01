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
# with a notice, where there is no Vulkan device). Then the same for a
# textured city (once; 64 MiB of float geometry with its facade textures in
# RGBA8 tiles), streamed with its texture tiles through the default
# profile's texture pool (the report's texture lines), and rendered into
# build/main/textured-render/, its facades sampled from that pool. Its
# exit status is the first run's that failed (0 when every budget held),
# else the first render's.
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
# stream_and_render PACK NAME: the run's report on the terminal, its
# timeline and eviction log, then the render, into $out (NAME a prefix).
stream_and_render() {
    local pack=$1 name=$2 rc=0
    "$sluice" run "$pack" --profile budgets/default.profile --camera fly --frames 600 \
        --svg "$out/${name}run.svg" --evict-log "$out/${name}evict.log" || rc=$?
    [ "$status" -ne 0 ] || status=$rc
    echo "timeline: $out/${name}run.svg; eviction log: $out/${name}evict.log"
    if "$sluice" render "$pack" --profile budgets/default.profile --camera fly --frames 12 --every 6 \
        --size 640x360 -o "$out/${name}render" > "$out/${name}render.txt" 2> "$out/${name}render.err"; then
        grep '^render' "$out/${name}render.txt"
        echo "frames: $out/${name}render/frame-00000.png, frame-00006.png, frame-00011.png;" \
            "report: $out/${name}render.txt"
    elif grep -q 'no Vulkan device\|no renderer' "$out/${name}render.err"; then
        echo "render: skipped ($(head -1 "$out/${name}render.err"))"
    else
        cat "$out/${name}render.err" >&2
        [ "$status" -ne 0 ] || status=1
    fi
}
stream_and_render "$pack" ""
textured=$out/textured.pack
if ! "$sluice" inspect "$textured" >/dev/null 2>&1; then
    echo "packing a textured synthetic city into $textured (about a minute on 2 cores)"
    "$sluice" pack --synthetic city --size 64MiB --textures -o "$textured" >/dev/null
fi
stream_and_render "$textured" "textured-"
exit "$status"
