#!/bin/sh
# SPDX-License-Identifier: MIT
# run_load_failure.sh OUTDIR PACK SLUICE: a pack whose chunk 5 has one stored
# byte inverted (flip_byte.sh; the chunk table's offset read with python3)
# and a trace asking for chunk 5: the load fails its checksum, so the verdict
# fails (exit 4) naming the count, the chunk and its status, in the text and
# in --json ("ok": false); with --allow-load-failures the run exits 0 and
# the report says the failures were allowed.
set -u
out=$1
pack=$2
sluice=$3
dir=$(dirname "$0")
mkdir -p "$out" || exit 1
fail() { echo "run_load_failure: $*" >&2; exit 1; }
off=$(python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read(4096)
table = struct.unpack_from("<Q", d, 64)[0]           # header: chunk_offset
f = open(sys.argv[1], "rb"); f.seek(table + 48 * 5)  # chunk record 5: its offset first
print(struct.unpack("<Q", f.read(8))[0] + 16)' "$pack") || fail "cannot read the chunk table"
"$dir/flip_byte.sh" "$pack" "$out/bad.pack" "$off" || fail "flip_byte.sh"
printf 'sluice-trace 1\nframes 4\n0 chunk 5 255\n1 chunk 5 255\n' > "$out/chunk5.trace"
run() { "$sluice" run "$out/bad.pack" --backend host --trace "$out/chunk5.trace" "$@" 2>&1; }

msg=$(run)
rc=$?
printf '%s\n' "$msg"
[ "$rc" -eq 4 ] || fail "exit code $rc, expected 4"
printf '%s\n' "$msg" | grep -q '^verdict: FAILED$' || fail "no 'verdict: FAILED'"
printf '%s\n' "$msg" | grep -Eq '^  - 1 chunk loads failed \(first: chunk 5 SLC_E_PACK_CHUNK_CHECKSUM \(frame [0-9]+\)\)$' ||
    fail "no reason naming the count, chunk 5 and its status"
printf '%s\n' "$msg" | "$dir/loads_add_up.sh" run_load_failure || fail "the loads do not add up with a failure"

msg=$(run --json)
rc=$?
[ "$rc" -eq 4 ] || fail "--json: exit code $rc, expected 4"
printf '%s\n' "$msg" | sed -n '/^{/,$p' | python3 -c '
import json, sys
r = json.load(sys.stdin)
lf = r["load_failures"]
assert r["schema_version"] == 1, r["schema_version"]
assert r["verdict"]["ok"] is False, r["verdict"]
assert lf["count"] == 1 and lf["allowed"] is False, lf
assert lf["first"][0]["chunk"] == 5 and lf["first"][0]["status"] == "SLC_E_PACK_CHUNK_CHECKSUM", lf
assert any("chunk loads failed" in x for x in r["verdict"]["reasons"]), r["verdict"]
t = r["stream"]
assert t["loads"] + t["failures"] + t["cancelled"] + t["unapplied_loads"] == t["worker_loads"] + t["caller_loads"], t
' || fail "--json: the report does not fail the verdict on the failed load"

msg=$(run --allow-load-failures)
rc=$?
printf '%s\n' "$msg"
[ "$rc" -eq 0 ] || fail "--allow-load-failures: exit code $rc, expected 0"
printf '%s\n' "$msg" | grep -q '^load failures: 1 (first: chunk 5 .*allowed by --allow-load-failures' ||
    fail "--allow-load-failures: the report does not say the failures were allowed"
printf '%s\n' "$msg" | grep -q '^verdict: ok' || fail "--allow-load-failures: no 'verdict: ok'"
echo "run_load_failure: ok"
