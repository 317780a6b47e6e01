#!/bin/sh
# SPDX-License-Identifier: MIT
# run_outputs.sh OUTDIR PACK SLUICE...: `sluice run` on the host backend with
# every output file, then checks each: the SVG starts with "<svg", the Chrome
# trace holds traceEvents with frames and the workers' loads, the eviction log has
# as many entries as the report's "eviction log: N entries" line says.
set -u
out=$1
pack=$2
shift 2
mkdir -p "$out" || exit 1
rm -f "$out/run.svg" "$out/run.json" "$out/run.evict"
report=$("$@" run "$pack" --backend host --camera teleport --seed 3 --frames 120 \
         --svg "$out/run.svg" --chrome-trace "$out/run.json" --evict-log "$out/run.evict" 2>&1)
rc=$?
printf '%s\n' "$report"
[ "$rc" -eq 0 ] || { echo "run_outputs: exit code $rc" >&2; exit 1; }
head -c 4 "$out/run.svg" | grep -q '^<svg' || { echo "run_outputs: run.svg does not start with <svg" >&2; exit 1; }
grep -q '</svg>' "$out/run.svg" || { echo "run_outputs: run.svg is not closed" >&2; exit 1; }
grep -q '"traceEvents"' "$out/run.json" || { echo "run_outputs: no traceEvents in run.json" >&2; exit 1; }
grep -q '"name": "frame", .*"args": {"frame": 119,' "$out/run.json" || { echo "run_outputs: frame 119 missing from run.json" >&2; exit 1; }
# counter tracks: pool pages, misses, the caller's loads and every budget (sampled where it changed)
python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
frames = [e for e in ev if e["ph"] == "X" and e.get("cat") == "frame"]
assert {e["name"] for e in frames} == {"frame"}, "frame slices with other names"
assert [e["args"]["frame"] for e in frames] == list(range(120)), "frame numbers"
counters = {e["name"] for e in ev if e["ph"] == "C"}
for name in ("pool", "misses", "upload", "caller loads", "budget gpu/pool", "budget cpu/meta"):
    assert name in counters, name + " track missing: " + str(sorted(counters))
' "$out/run.json" || { echo "run_outputs: run.json lacks a frame slice or a counter track" >&2; exit 1; }
# Worker load spans: one at least when the report counts loads by workers,
# none when it counts none (on a busy machine the caller may make every load
# itself: the split is not deterministic, the spans must follow it).
by_workers=$(printf '%s\n' "$report" | sed -n 's/^chunks: .* run: \([0-9]*\) by workers.*/\1/p')
[ -n "$by_workers" ] || { echo "run_outputs: no 'N by workers' in the report" >&2; exit 1; }
printf '%s\n' "$report" | "$(dirname "$0")/loads_add_up.sh" run_outputs || exit 1
spans=$(grep -c '"name": "load"' "$out/run.json")
if [ "$by_workers" -gt 0 ]; then
    [ "$spans" -gt 0 ] || { echo "run_outputs: $by_workers loads by workers, no worker load spans in run.json" >&2; exit 1; }
else
    [ "$spans" -eq 0 ] || { echo "run_outputs: no loads by workers, $spans worker load spans in run.json" >&2; exit 1; }
fi
# a JSON parser, not a grep, says it is JSON (python3 comes with scripts/deps.sh)
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out/run.json" || { echo "run_outputs: run.json is not JSON" >&2; exit 1; }
want=$(printf '%s\n' "$report" | sed -n 's/^eviction log: \([0-9]*\) entries.*/\1/p')
got=$(grep -vc '^#' "$out/run.evict")
[ -n "$want" ] && [ "$want" -eq "$got" ] || { echo "run_outputs: eviction log has $got entries, report says '$want'" >&2; exit 1; }
echo "run_outputs: ok"
