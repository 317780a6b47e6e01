#!/bin/sh
# SPDX-License-Identifier: MIT
# run_mmap_truncate.sh OUTDIR PACK SLUICE: a pack mapped by `sluice run
# --mmap` is cut short while the run holds it. The trace comes through a
# FIFO: the run maps the pack and reads its tables before it opens the
# trace, so once the FIFO's writer end opens, the pack is truncated at the
# 4 KiB page below chunk 5's bytes, and only then is the trace written. The
# load of chunk 5 touches pages beyond the end of the file (SIGBUS inside
# the mapping): it must fail as an I/O error, and the run must end with its
# report, the verdict failed and exit 4, not "Bus error". The profile pins
# nothing, so no load happens before the cut.
set -u
out=$1
pack=$2
sluice=$3
dir=$(dirname "$0")
top=$(cd "$dir/../.." && pwd)
mkdir -p "$out" || exit 1
fail() { echo "run_mmap_truncate: $*" >&2; exit 1; }
cp "$pack" "$out/cut.pack" || fail "cannot copy the pack"
sed 's/^pin_coarsest *=.*/pin_coarsest = 0/' "$top/budgets/default.profile" > "$out/nopin.profile" || fail "profile"
grep -q '^pin_coarsest = 0$' "$out/nopin.profile" || fail "the profile still pins"
cut=$(python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read(4096)
table = struct.unpack_from("<Q", d, 64)[0]           # header: chunk_offset
f = open(sys.argv[1], "rb"); f.seek(table + 48 * 5)  # chunk record 5: its offset first
print(struct.unpack("<Q", f.read(8))[0] // 4096 * 4096)' "$out/cut.pack") || fail "cannot read the chunk table"
[ "$cut" -gt 0 ] || fail "chunk 5 lies in the first page"
fifo=$out/trace.fifo
rm -f "$fifo" "$out/report.txt"
mkfifo "$fifo" || fail "mkfifo"
"$sluice" run "$out/cut.pack" --mmap --backend host --workers 1 --profile "$out/nopin.profile" \
    --trace "$fifo" > "$out/report.txt" 2>&1 &
pid=$!
exec 3> "$fifo" # returns once the run has opened the trace: the pack is mapped
python3 -c 'import os, sys; os.truncate(sys.argv[1], int(sys.argv[2]))' "$out/cut.pack" "$cut" ||
    fail "cannot truncate"
printf 'sluice-trace 1\nframes 6\n0 chunk 5 255\n2 chunk 5 255\n' >&3
exec 3>&-
wait "$pid"
rc=$?
cat "$out/report.txt"
[ "$rc" -eq 4 ] || fail "exit code $rc, expected 4 (a killing signal gives 128 + its number)"
grep -q 'Bus error' "$out/report.txt" && fail "the run died of a bus error"
grep -q '^verdict: FAILED$' "$out/report.txt" || fail "no 'verdict: FAILED'"
grep -Eq '^  - [0-9]+ chunk loads failed \(first: chunk 5 SLC_E_IO \(frame [0-9]+\)' "$out/report.txt" ||
    fail "no reason naming chunk 5 and SLC_E_IO"
grep -q 'could not be read' "$out/report.txt" || fail "no message saying the mapped bytes could not be read"
echo "run_mmap_truncate: ok"
