#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-texture.sh [--side N] [--formats "rgba8 bc1 ..."] [--jobs "1 2"] [SLUICE]: what a
# texture costs the packer. A side x side RGBA PNG (8192 by default: an 8K
# texture of bricks and mortar, written here with Python's zlib) on one quad of a glTF, packed with each --texture-format and each
# --jobs. Per run: wall and CPU seconds (/usr/bin/time), the texture's
# encode time and level-0 PSNR the packer reports, megatexels encoded per second and
# per CPU-second, the pack's texture bytes, and the peak RSS against the
# image's RGBA8 size (the bound docs/packing.md states: the image and its mip
# chain, whatever its tiles). Every --jobs output of a format is compared
# (cmp) with the first's. Measure with a Release build (build/release/tools/
# sluice by default). Takes minutes (ASTC at medium quality is slow); never
# part of the test suite.
#
#   scripts/bench-texture.sh --side 4096 --formats "rgba8 bc1" build/default/tools/sluice
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
side=8192
formats="rgba8 bc1 bc3 astc4x4 astc6x6 astc8x8"
jobs_list="1 2"
while [[ $# -gt 0 ]]; do
    case $1 in
    --side) side=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    --jobs) jobs_list=$2; shift 2 ;;
    -h | --help) sed -n '3,17p' "$0"; exit 0 ;;
    *) break ;;
    esac
done
sluice=${1:-$root/build/release/tools/sluice}
[[ -x $sluice ]] || { echo "bench-texture: no sluice at $sluice (build one, or name it)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$root/scripts/texture-quad.py" "$side" "$work"
rgba=$((side * side * 4))
printf 'bench-texture: a %ux%u texture (RGBA8 %s MiB), %s\n' "$side" "$side" "$((rgba >> 20))" "$sluice"
printf '%-8s %4s %8s %8s %8s %8s %10s %12s %9s %8s\n' format jobs "wall s" "cpu s" "tex s" "Mtex/s" "Mtex/cpu-s" "tex bytes" "peak MiB" "xRGBA8"
for f in $formats; do
    first=""
    for j in $jobs_list; do
        out="$work/$f-$j.pack"
        /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$sluice" pack "$work/quad.gltf" --texture-format "$f" \
            --jobs "$j" -o "$out" >"$work/sum" 2>&1 || { cat "$work/sum" >&2; exit 1; }
        read -r wall user sys rss_k <"$work/time"
        line=$(grep "^  materials" "$work/sum")
        tex_s=$(sed -n 's/^  textures     decode .*, encode \([0-9.]*\) s.*/\1/p' "$work/sum")
        mtex=$(sed -n 's/.* \([0-9.]*\) Mtexels in .*/\1/p' <<<"$line")
        stored=$(sed -n 's/.* decoded, \(.*\) stored$/\1/p' <<<"$line")
        # the texture's row: index 0, size, kind, format, then its PSNR ("exact" or "N dB")
        psnr=$(awk '$1 == "0" && $4 == "'"$f"'" { print ($5 == "exact" ? "exact" : $5 " dB") }' "$work/sum")
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
        printf '%-8s %4s %8s %8s %8s %8.2f %10.2f %12s %9.0f %8.2f   PSNR %s\n' "$f" "$j" "$wall" "$cpu" "$tex_s" \
            "$(awk -v m="$mtex" -v t="$tex_s" 'BEGIN { print (t > 0 ? m / t : 0) }')" \
            "$(awk -v m="$mtex" -v c="$cpu" 'BEGIN { print (c > 0 ? m / c : 0) }')" "$stored" \
            "$(awk -v k="$rss_k" 'BEGIN { print k / 1024 }')" "$(awk -v k="$rss_k" -v r="$rgba" 'BEGIN { print k * 1024 / r }')" \
            "$psnr"
        if [[ -z $first ]]; then
            first=$out
        else
            cmp -s "$first" "$out" || { echo "bench-texture: $f --jobs $j differs from the first jobs' pack" >&2; exit 1; }
        fi
    done
done
