#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The large-pack benchmark (not part of ctest: minutes at 8 GiB):
#
#   scripts/bench-pack-large.sh [SIZE] [WORKDIR]
#
# builds sluice Release (build/bench-release, or the binary in $SLUICE), then
#   1. sluice pack --synthetic city --size SIZE --jobs 2     (SIZE: 8G by default)
#   2. sluice inspect --verify on the pack                   (every chunk read, checked, decoded)
#   3. sluice run on the pack: 120 frames of the fly camera on the host
#      backend, under a copy of budgets/default.profile whose tables
#      (max_chunks, max_objects, max_string_bytes, cpu/meta) are widened to
#      hold a pack of this size
# each under /usr/bin/time -v, and prints per step its wall time, MB/s (pack:
# input bytes, the others: pack bytes, per wall second) and peak resident
# memory. The packer's memory does not grow with the scene: compare the peak
# RSS of two sizes (e.g. 512M and 1G).
#
# WORKDIR (default: a new folder under ${TMPDIR:-/tmp}) needs about 1.5 x
# SIZE of free space; the pack is removed at the end unless KEEP=1.
set -euo pipefail
size=${1:-8G}
root=$(cd "$(dirname "$0")/.." && pwd)
work=${2:-$(mktemp -d "${TMPDIR:-/tmp}/bench-pack-large.XXXXXX")}
mkdir -p "$work"

[[ -x /usr/bin/time ]] || { echo "bench-pack-large: /usr/bin/time (GNU time) is needed" >&2; exit 1; }
if [[ -n "${SLUICE:-}" ]]; then
    sluice=$SLUICE
else
    cmake -S "$root" -B "$root/build/bench-release" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$root/build/bench-release" --target sluice -j2 >/dev/null
    sluice=$root/build/bench-release/tools/sluice
fi

pack=$work/city.pack
profile=$work/large.profile
# The default profile with tables for a pack of millions of chunks.
sed -e 's/^cpu  *=.*/cpu             = 600 MiB/' \
    -e 's|^cpu/meta  *=.*|cpu/meta        = 512 MiB|' \
    -e 's/^max_objects  *=.*/max_objects      = 1048576/' \
    -e 's/^max_chunks  *=.*/max_chunks       = 4194304/' \
    -e 's/^max_string_bytes  *=.*/max_string_bytes = 32 MiB/' \
    "$root/budgets/default.profile" >"$profile"

bytes_of() { # SIZE -> bytes, as sluice reads it (K, M, G, T: powers of 1024)
    local s=$1 n u
    n=${s%%[KMGTkmgt]*}
    u=${s#"$n"}
    case $u in
    K | KiB) echo $((n << 10)) ;;
    M | MiB) echo $((n << 20)) ;;
    G | GiB) echo $((n << 30)) ;;
    T | TiB) echo $((n << 40)) ;;
    *) echo "$n" ;;
    esac
}

# step NAME BYTES CMD...: runs CMD under time -v and prints its line.
step() {
    local name=$1 bytes=$2
    shift 2
    local log=$work/$name.time
    if ! /usr/bin/time -v -o "$log" "$@" >"$work/$name.out" 2>"$work/$name.err"; then
        cat "$work/$name.err" >&2
        echo "bench-pack-large: $name failed" >&2
        exit 1
    fi
    local wall rss
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$log")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    awk -v n="$name" -v w="$wall" -v b="$bytes" -v r="$rss" \
        'BEGIN {printf "%-8s wall %8.2f s  %8.1f MB/s  peak RSS %8.1f MiB\n", n, w, (w > 0 ? b / w / 1e6 : 0), r / 1024}'
}

input=$(bytes_of "$size")
echo "bench-pack-large: city of $size ($input input bytes) in $work, sluice $sluice"
step pack "$input" "$sluice" pack --synthetic city --size "$size" --jobs 2 --quiet -o "$pack"
packbytes=$(stat -c %s "$pack")
step inspect "$packbytes" "$sluice" inspect "$pack" --verify
step run "$packbytes" "$sluice" run "$pack" --profile "$profile" --backend host --frames 120
echo "pack     $packbytes bytes; $(grep -E '^verify:' "$work/inspect.out" || true)"
if [[ "${KEEP:-0}" != 1 ]]; then
    rm -f "$pack"
fi
