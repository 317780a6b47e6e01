#!/bin/sh
# SPDX-License-Identifier: MIT
# bench-usd.sh SLUICE [SAMPLES] [REPS]: USD import speed and memory.
#
# For the largest text (.usda) and crate (.usdc / .usdz) samples of SAMPLES
# (default ../shared/usd beside the source tree), for a generated .usda of N
# copies of the torus mesh (about 10 MB), and for the glTF halves of the
# glTF/USD pairs beside their USD halves, runs `sluice pack` REPS times (3)
# and prints per input: its bytes, the USD phases' median seconds (open,
# compose, import), import MB/s (layer bytes over open + compose + import),
# the whole pack's MB/s of input file bytes, and peak resident memory per
# input MB. Figures are medians over the repeats of one run; compare rows of
# the same run only (the machine is shared). Not part of the test suite.
set -eu
sluice=$1
here=$(cd "$(dirname "$0")/.." && pwd)
samples=${2:-$here/../shared/usd}
reps=${3:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# The generated file: the torus mesh of warp/torus.usda, COPIES times, each
# under its own Xform at its own place (no instancing: every copy is read).
copies=${COPIES:-30}
gen=$tmp/tori.usda
awk -v copies="$copies" '
    /^def Xform "World"/ { body = 0 }
    /^    def Mesh "Torus"/ { body = 1 }
    body { mesh = mesh $0 "\n" }
    body && /^    }$/ { body = 0 }
    END {
        print "#usda 1.0\n(\n    metersPerUnit = 0.01\n    upAxis = \"Y\"\n)\n"
        for (i = 0; i < copies; i++) {
            printf "def Xform \"Copy%d\"\n{\n    double3 xformOp:translate = (%d, 0, 0)\n", i, i * 200
            printf "    uniform token[] xformOpOrder = [\"xformOp:translate\"]\n"
            printf "%s}\n", mesh
        }
    }' "$samples/warp/torus.usda" >"$gen"

# median of the numbers on stdin
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else print v[int((NR + 1) / 2)] }'
}

printf '%-44s %10s %8s %8s %8s %10s %10s %12s\n' input bytes open_s comp_s imp_s import_MB/s pack_MB/s peak_MiB/MB
run() {
    name=$1
    file=$2
    bytes=$3
    : >"$tmp/o" ; : >"$tmp/c" ; : >"$tmp/i" ; : >"$tmp/p" ; : >"$tmp/m"
    r=0
    while [ "$r" -lt "$reps" ]; do
        out=$("$sluice" pack ${flags:-} "$file" -o "$tmp/out.pack" 2>/dev/null) || { echo "$name: pack failed" >&2; return; }
        printf '%s\n' "$out" | sed -n 's/.*usd phases   open \([0-9.]*\) s.*compose \([0-9.]*\) s.*import \([0-9.]*\) s.*/\1 \2 \3/p' |
            while read -r o c i; do echo "$o" >>"$tmp/o"; echo "$c" >>"$tmp/c"; echo "$i" >>"$tmp/i"; done
        printf '%s\n' "$out" | sed -n 's/.* in \([0-9.]*\) s: .*/\1/p' >>"$tmp/p"
        printf '%s\n' "$out" | sed -n 's/.*peak memory  \([0-9.]*\) \([KMG]\)iB resident.*/\1 \2/p' |
            awk '{ f = $2 == "K" ? 1 / 1024 : $2 == "G" ? 1024 : 1; print $1 * f }' >>"$tmp/m"
        r=$((r + 1))
    done
    o=$(median <"$tmp/o"); c=$(median <"$tmp/c"); i=$(median <"$tmp/i")
    p=$(median <"$tmp/p"); m=$(median <"$tmp/m")
    awk -v n="$name" -v b="$bytes" -v o="$o" -v c="$c" -v i="$i" -v p="$p" -v m="$m" 'BEGIN {
        t = o + c + i
        printf "%-44s %10d %8.4f %8.4f %8.4f %10s %10.2f %12.1f\n", n, b, o, c, i,
               (t > 0 ? sprintf("%.2f", b / t / 1e6) : "-"), (p > 0 ? b / p / 1e6 : 0), m / (b / 1e6)
    }'
}

size() { wc -c <"$1" | tr -d ' '; }

run "generated ${copies} tori (usda)" "$gen" "$(size "$gen")"
run warp/torus.usda "$samples/warp/torus.usda" "$(size "$samples/warp/torus.usda")"
tea=$samples/usdwg/intent-vfx
flags=--allow-outside-paths run "teapotScene_layout.usd (usda, 6 layers)" "$tea/scenes/teapotScene_layout.usd" \
    "$(cat "$tea/scenes/teapotScene_layout.usd" "$tea"/assets/teapot/*.usd "$tea/assets/teapot/geo/UtahTeapot.usd" | wc -c | tr -d ' ')"
run tinyusdz/suzanne.usda "$samples/tinyusdz/suzanne.usda" "$(size "$samples/tinyusdz/suzanne.usda")"
run tinyusdz/suzanne.usdc "$samples/tinyusdz/suzanne.usdc" "$(size "$samples/tinyusdz/suzanne.usdc")"
run usdwg/RoughnessTest.usdz "$samples/usdwg/RoughnessTest/RoughnessTest.usdz" \
    "$(size "$samples/usdwg/RoughnessTest/RoughnessTest.usdz")"
for pair in BoxAnimated InterpolationTest TextureCoordinateTest; do
    for f in "$samples/pairs/$pair/$pair".usd* "$samples/pairs/$pair/$pair.glb"; do
        [ -e "$f" ] && run "pairs/$pair/$(basename "$f")" "$f" "$(size "$f")"
    done
done
