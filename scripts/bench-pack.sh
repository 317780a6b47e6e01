#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-pack.sh [--quick] [--reps N] [--jobs "1 2"] [--only "NAME..."] [SLUICE]: `sluice pack`
# throughput at each --jobs on the same inputs, in the same run: a synthetic
# city of 64 MiB and of 256 MiB (left out with --quick), the largest glTF
# samples (ToyCar) and every sample of the MANIFEST.tsv in one pack
# (GLTF_DIR, ../shared/gltf beside the repository by default;
# --skip-unsupported). Per input and jobs: the median over N runs (3 by
# default, 1 for the 256 MiB city) of MB/s of input (the pack's summary),
# wall seconds, CPU seconds (user + sys, /usr/bin/time), MB per CPU-second
# (the fair figure when other work competes for the cores), peak RSS, and the
# speedup of wall time and of MB per CPU-second over the first --jobs. Every
# output is compared (cmp) with the first jobs' output: the bytes may not
# depend on --jobs. Measure with a Release build (build/release/tools/sluice
# by default: cmake --preset release && cmake --build --preset release).
# --only keeps the named inputs (city-64M city-256M ToyCar all-samples).
# Takes minutes (the 256 MiB city about a minute a run at --jobs 1); never
# part of the test suite.
#
#   scripts/bench-pack.sh --quick build/release/tools/sluice
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
quick=0
reps=3
jobs_list="1 2"
only=""
while [[ $# -gt 0 ]]; do
    case $1 in
    --quick) quick=1; shift ;;
    --reps) reps=$2; shift 2 ;;
    --jobs) jobs_list=$2; shift 2 ;;
    --only) only=" $2 "; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) break ;;
    esac
done
sluice=${1:-$root/build/release/tools/sluice}
[[ -x $sluice ]] || { echo "bench-pack: $sluice is not an executable (give the sluice binary)" >&2; exit 3; }
[[ -x /usr/bin/time ]] || { echo "bench-pack: /usr/bin/time not found (GNU time)" >&2; exit 3; }
gltf_dir=${GLTF_DIR:-$root/../shared/gltf}
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-pack.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The inputs: NAME REPS ARGS..., one per line (ARGS split on spaces; sample
# paths with spaces are given through the array below).
declare -a names=() input_reps=() inputs=()
wanted() { [[ -z $only || $only == *" $1 "* ]]; }
add() {
    wanted "$1" || return 0
    names+=("$1")
    input_reps+=("$2")
    inputs+=("$3")
}
add city-64M "$reps" "--synthetic city --size 64M --seed 1"
[[ $quick -eq 1 ]] || add city-256M 1 "--synthetic city --size 256M --seed 1"
toycar=$(find "$gltf_dir" -path '*ToyCar*' -name '*.gltf' 2>/dev/null | head -1 || true)
if [[ -n $toycar ]]; then
    add ToyCar "$reps" "@toycar"
elif wanted ToyCar; then
    echo "bench-pack: no ToyCar under $gltf_dir (set GLTF_DIR): left out" >&2
fi
if [[ -r $gltf_dir/MANIFEST.tsv ]]; then
    add all-samples "$reps" "@all"
elif wanted all-samples; then
    echo "bench-pack: no $gltf_dir/MANIFEST.tsv (set GLTF_DIR): all-samples left out" >&2
fi
all_samples=()
if [[ -r $gltf_dir/MANIFEST.tsv ]]; then
    while IFS=$'\t' read -r _name _kind main _rest; do
        [[ -n $main ]] && all_samples+=("$gltf_dir/$main")
    done < <(tail -n +2 "$gltf_dir/MANIFEST.tsv")
fi

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

printf '%-12s %5s %9s %8s %8s %10s %9s %8s %10s\n' input jobs "MB/s" "wall s" "cpu s" "MB/cpu-s" "peak MiB" speedup "cpu ratio"
for i in "${!names[@]}"; do
    name=${names[$i]}
    case ${inputs[$i]} in
    @toycar) args=("$toycar") ;;
    @all) args=(--skip-unsupported "${all_samples[@]}") ;;
    *) read -r -a args <<<"${inputs[$i]}" ;;
    esac
    base_wall="" base_per_cpu="" first=""
    for j in $jobs_list; do
        : >"$work/runs"
        for ((r = 0; r < ${input_reps[$i]}; r++)); do
            out=$work/$name-$j.pack
            /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$sluice" pack "${args[@]}" --jobs "$j" -o "$out" \
                >"$work/summary" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
            mbs=$(sed -n 's/^  input .* s: \([0-9.]*\) MB\/s$/\1/p' "$work/summary")
            # "  input        64.0 MiB of float ...": the input in MB (1e6 bytes)
            bytes=$(sed -n 's/^  input *\([0-9.]*\) \([KMGT]\{0,1\}\)i\{0,1\}B of .*/\1 \2/p' "$work/summary" |
                awk '{f = 1; if ($2 == "K") f = 1024; if ($2 == "M") f = 1048576; if ($2 == "G") f = 1073741824;
                      if ($2 == "T") f = 1099511627776; print $1 * f / 1e6}')
            read -r wall user sys rss_kib <"$work/time"
            cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')
            echo "$mbs $wall $cpu $(awk -v b="$bytes" -v c="$cpu" 'BEGIN {print (c > 0 ? b / c : 0)}') $rss_kib" >>"$work/runs"
        done
        if [[ -z $first ]]; then
            first=$work/$name-first.pack
            cp "$work/$name-$j.pack" "$first"
        elif ! cmp -s "$first" "$work/$name-$j.pack"; then
            echo "bench-pack: $name: --jobs $j gives other bytes than --jobs ${jobs_list%% *}" >&2
            exit 1
        fi
        mbs=$(cut -d' ' -f1 "$work/runs" | median)
        wall=$(cut -d' ' -f2 "$work/runs" | median)
        cpu=$(cut -d' ' -f3 "$work/runs" | median)
        per_cpu=$(cut -d' ' -f4 "$work/runs" | median)
        rss=$(cut -d' ' -f5 "$work/runs" | median)
        [[ -n $base_wall ]] || { base_wall=$wall; base_per_cpu=$per_cpu; }
        printf '%-12s %5s %9.1f %8.2f %8.2f %10.2f %9.1f %7.2fx %9.2fx\n' "$name" "$j" "$mbs" "$wall" "$cpu" "$per_cpu" \
            "$(awk -v k="$rss" 'BEGIN {print k / 1024}')" "$(awk -v a="$base_wall" -v b="$wall" 'BEGIN {print (b > 0 ? a / b : 0)}')" \
            "$(awk -v a="$base_per_cpu" -v b="$per_cpu" 'BEGIN {print (a > 0 ? b / a : 0)}')"
    done
done
echo "(medians of the runs; speedup: wall time of the first --jobs over this one's; cpu ratio: MB per CPU-second"
echo " against the first --jobs, 1.00 when the threads add no work; outputs compared byte for byte)"
