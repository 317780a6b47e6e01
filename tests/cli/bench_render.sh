#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_render.sh WORKDIR PROFILE SLUICE...: a smoke run of `sluice bench
# render` at tiny sizes with the validation layer on (--validate: any message
# fails the run), and its refusals. Checks the report's lines exist for float
# and quantized pages, each variant's GPU ms a frame and triangles a second
# and the ratio line positive numbers; no timing threshold. Then each bad
# input: its exit code and message.
set -u
dir=$1
profile=$2
shift 2
fail() { echo "bench_render: $*" >&2; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || fail "mkdir $dir"
out=$dir/out.txt
err=$dir/err.txt

TMPDIR=$dir "$@" bench render --synthetic city:256KiB --size 64x48 --frames 2 --repeat 1 --breakdown --validate \
    > "$out" 2> "$err"
rc=$?
cat "$out"
[ "$rc" -eq 0 ] || fail "exit code $rc, expected 0: $(cat "$err")"
[ ! -s "$err" ] || fail "wrote to stderr: $(cat "$err")"
ls "$dir" | grep -q '^sluice-bench-render-' && fail "the temporary packs were left behind: $(ls "$dir")"
grep -q '^bench render: 64x48, 2 frames x 1 repeats a variant' "$out" || fail "no header line"
for kind in float quantized; do
    grep -Eq "^$kind pages \\(city:256KiB: [1-9][0-9]* objects, [1-9][0-9]* placements, [1-9][0-9]* chunks" "$out" ||
        fail "no '$kind pages' line"
done
# Each variant's line, twice (float, quantized), with positive figures.
for v in "pulling" "classic" "classic, a draw a cluster" "classic, unindexed" "classic, unindexed, a draw a cluster" \
         "classic, pulled from storage buffers" "classic, pulled from storage buffers, indexed" \
         "pulling in the classic render pass"; do
    n=$(grep -c "^  $v: median " "$out")
    [ "$n" -eq 2 ] || fail "'$v' lines: $n, expected 2"
    grep "^  $v: median " "$out" | awk -v v="$v" '
        { if (!match($0, /median [0-9.]+ ms a frame, [0-9.]+ M triangles\/s/)) { print "bad line: " $0; bad = 1; next }
          split(substr($0, RSTART, RLENGTH), f, " ");
          if (f[2] + 0 <= 0 || f[6] + 0 <= 0) { print v ": not positive: " $0; bad = 1 } }
        END { exit bad }' || fail "'$v': a figure is missing or not positive"
done
n=$(grep -Ec '^  pulling / classic: [0-9]+\.[0-9][0-9]x$' "$out")
[ "$n" -eq 2 ] || fail "ratio lines: $n, expected 2"
grep -E '^  pulling / classic: ' "$out" | awk '{ sub(/x$/, "", $4); if ($4 + 0 <= 0) bad = 1 } END { exit bad }' ||
    fail "a ratio is not positive"
# The renderer in the classic path's render pass: its cull pass and draws timed apart.
grep -Eq '^  pulling in the classic render pass: .*\(medians: cull pass [0-9.]+ ms, render pass with the draws [0-9.]+ ms\)$' "$out" ||
    fail "no cull pass and draws figures"
# Pulling draws every cluster of the view that sees the whole scene.
grep -Eq '^  pulling: .*\(([0-9]+) cluster draws, \1 kept by the GPU cull' "$out" ||
    fail "the renderer's cull pass dropped clusters of a view that holds the whole scene"

# expect CODE REGEX ARGS...: `sluice bench render ARGS` exits CODE with REGEX on stderr.
expect() {
    code=$1
    regex=$2
    shift 2
    TMPDIR=$dir "$@" > "$out" 2> "$err"
    got=$?
    [ "$got" -eq "$code" ] || fail "'$*': exit code $got, expected $code: $(cat "$err")"
    grep -Eq -- "$regex" "$err" || fail "'$*': stderr does not match '$regex': $(cat "$err")"
}
sluice=$*
# shellcheck disable=SC2086 # SLUICE may be an emulator and the binary
expect 2 "--size '64': expected WxH, each 1\\.\\.16384" $sluice bench render --size 64
# shellcheck disable=SC2086
expect 2 "--size '0x48': expected WxH, each 1\\.\\.16384" $sluice bench render --size 0x48
# shellcheck disable=SC2086
expect 2 "--size '64x99999': expected WxH, each 1\\.\\.16384" $sluice bench render --size 64x99999
# shellcheck disable=SC2086
expect 2 "--synthetic 'city:lots': expected KIND\\[:SIZE\\]" $sluice bench render --synthetic city:lots
# shellcheck disable=SC2086
expect 2 "--synthetic ':1MiB': expected KIND\\[:SIZE\\]" $sluice bench render --synthetic :1MiB
# shellcheck disable=SC2086
expect 2 "--synthetic forest:1MiB: .*forest" $sluice bench render --synthetic forest:1MiB
# shellcheck disable=SC2086
expect 2 "PACK and --synthetic exclude each other" $sluice bench render a.pack --synthetic city
# shellcheck disable=SC2086
expect 2 "--frames needs a count in 1\\.\\.100000" $sluice bench render --frames 0
# shellcheck disable=SC2086
expect 3 "no-such\\.pack" $sluice bench render "$dir/no-such.pack"
# A pool smaller than the pack, a queue shorter than its objects' spans.
sed 's/^page_count *= *4096/page_count = 8/' "$profile" > "$dir/small-pool.profile"
sed 's/^queue_capacity *= *1024/queue_capacity = 1/' "$profile" > "$dir/short-queue.profile"
TMPDIR=$dir "$@" pack --synthetic city --size 256KiB -o "$dir/city.pack" > /dev/null 2>&1 || fail "sluice pack failed"
# shellcheck disable=SC2086
expect 1 "city\\.pack: [0-9]+ chunks of pages of 65536 bytes; profile 'default' has a pool of 8 pages of 65536 bytes, which cannot hold every chunk" \
    $sluice bench render "$dir/city.pack" --profile "$dir/small-pool.profile" --frames 1 --repeat 1
# shellcheck disable=SC2086
expect 1 "city\\.pack: [0-9]+ objects whose level 0 has [0-9]+ spans; profile 'default' takes 1 requests and chunks a frame \\(queue_capacity\\)" \
    $sluice bench render "$dir/city.pack" --profile "$dir/short-queue.profile" --frames 1 --repeat 1
# A frame whose clusters do not fit the renderer's draw list ([render] max_draws).
sed 's/^max_draws *= *65536/max_draws = 10/' "$profile" > "$dir/few-draws.profile"
# shellcheck disable=SC2086
expect 1 "the renderer refused a request \\(SLC_E_CAPACITY: the profile's \\[render\\] max_draws and max_placements bound a frame\\)" \
    $sluice bench render "$dir/city.pack" --profile "$dir/few-draws.profile" --size 32x32 --frames 1 --repeat 1
grep -q "cluster draws do not fit the draw list (0 of max_draws 10 used)" "$err" ||
    fail "few draws: the renderer's own message is missing: $(cat "$err")"
# A PACK named on the command line is measured as it is: float, one section.
TMPDIR=$dir "$@" bench render "$dir/city.pack" --size 32x32 --frames 1 --repeat 1 > "$out" 2> "$err" ||
    fail "bench render PACK failed: $(cat "$err")"
[ "$(grep -c ' pages (' "$out")" -eq 1 ] && grep -q "^float pages ($dir/city.pack: " "$out" ||
    fail "bench render PACK: not one 'float pages' section: $(cat "$out")"
ls "$dir" | grep -q '^sluice-bench-render-' && fail "a refused run left its temporary packs: $(ls "$dir")"
echo "bench_render: ok"
