#!/usr/bin/env bash
# The main job: installs what is missing, builds sluice, packs a synthetic
# city (once; about 730 MiB of pack from 512 MiB of float geometry, nearly
# three times the default pool), streams a 600-frame fly-through of it under
# budgets/default on the default device (lavapipe where there is no GPU; the
# host backend, with a notice, where there is no Vulkan device at all),
# prints the report and the verdict, and writes the timeline as an SVG.
# Its exit status is the run's: 0 when every budget held.
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
exit "$status"
