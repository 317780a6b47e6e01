#!/bin/sh
# SPDX-License-Identifier: MIT
# render_outputs.sh OUTDIR SLUICE...: what `sluice render` writes and says.
#   - --json: the run's report with a "render" member (frames rendered and
#     written, size, every, tint, GPU time, what was drawn, the folder and
#     the contact sheet), parsed by python3's json module; the folder's name
#     (with '"', '\' and '<') comes back whole, escaped.
#   - --tint lod draws other pixels than the shaded default, from the same
#     stream (the same eviction log hash).
#   - --trace: the fixed overview, the trace's last frame written, into a
#     folder made with its missing parents.
#   - --size and the profile's [render] size: a PNG's IHDR holds the size.
set -u
out=$1
shift
fail() { echo "render_outputs: $*" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out" || exit 1
pack=$out/city.pack
"$@" pack --synthetic city --size 1MiB --seed 5 -o "$pack" > "$out/pack.log" 2>&1 || fail "pack: $(cat "$out/pack.log")"
opts="--frames 4 --every 3 --size 160x90 --validate"

odd="$out/we\"ird\\<dir"
"$@" render "$pack" $opts --tint lod --json -o "$odd" > "$out/tint.json" 2> "$out/tint.err" ||
    fail "render --json: exit $?: $(cat "$out/tint.err")"
! grep -Eq 'VUID|Validation' "$out/tint.err" || fail "validation messages: $(cat "$out/tint.err")"
python3 - "$out/tint.json" "$odd" <<'PY' || fail "the --json report is not what it should be"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["render"]
want = {"frames_rendered": 4, "frames_written": 2, "width": 160, "height": 90, "every": 3, "tint": "lod",
        "output": sys.argv[2], "contact_sheet": sys.argv[2] + "/contact.png", "requests_not_drawn": 0}
for k, v in want.items():
    assert r[k] == v, (k, r[k], v)
assert r["gpu_ns"] is None or r["gpu_ns"]["p50"] <= r["gpu_ns"]["p95"] <= r["gpu_ns"]["max"], r["gpu_ns"]
assert r["triangles_p50"] > 0 and r["clusters_p50"] > 0, r
assert d["verdict"]["ok"] is True, d["verdict"]
PY
"$@" render "$pack" $opts -o "$out/plain" > "$out/plain.log" 2> "$out/plain.err" ||
    fail "render: exit $?: $(cat "$out/plain.err")"
hash=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["eviction_log"]["hash"])' "$out/tint.json")
grep -q "^eviction log: .*hash $hash$" "$out/plain.log" || fail "--tint lod streamed differently: $hash"
! cmp -s "$odd/frame-00000.png" "$out/plain/frame-00000.png" || fail "--tint lod drew the same pixels"

# IHDR: bytes 16..23 are the width and height, big-endian.
size_of() { od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }'; }
[ "$(size_of "$out/plain/frame-00003.png")" = "160x90" ] || fail "frame-00003.png is $(size_of "$out/plain/frame-00003.png")"

# Without --size, the profile's [render] width and height.
profile=$(dirname "$0")/../../budgets/default.profile
sed 's/^width  *= .*/width = 120/; s/^height  *= .*/height = 68/' "$profile" > "$out/small.profile"
grep -q '^width = 120$' "$out/small.profile" || fail "no [render] width in $profile"
"$@" render "$pack" --frames 1 --validate --profile "$out/small.profile" -o "$out/prof" > "$out/prof.log" \
    2> "$out/prof.err" || fail "render --profile: exit $?: $(cat "$out/prof.err")"
[ "$(size_of "$out/prof/frame-00000.png")" = "120x68" ] || fail "the profile's size gave $(size_of "$out/prof/frame-00000.png")"
grep -q '^render: 1 frames rendered at 120x68' "$out/prof.log" || fail "the report does not say 120x68"

"$@" run "$pack" --frames 6 --backend host --save-trace "$out/six.trace" > /dev/null 2>&1 || fail "run --save-trace"
"$@" render "$pack" --trace "$out/six.trace" --size 96x64 --every 100 --validate -o "$out/made/by/render" > "$out/trace.log" \
    2> "$out/trace.err" || fail "render --trace: exit $?: $(cat "$out/trace.err")"
files=$(cd "$out/made/by/render" && ls -A | tr '\n' ' ')
[ "$files" = "contact.png frame-00000.png frame-00005.png " ] || fail "render --trace wrote '$files'"
[ "$(size_of "$out/made/by/render/frame-00005.png")" = "96x64" ] || fail "the trace's frame is $(size_of "$out/made/by/render/frame-00005.png")"
grep -Eq '^render drawn a frame \(median\): [1-9][0-9]* triangles' "$out/trace.log" || fail "the overview drew nothing"
# Runs no longer than the profile's frames in flight (3 in xr-headset):
# every frame still retires and the last is written.
xr=$(dirname "$0")/../../budgets/xr-headset.profile
for n in 1 2 3; do
    "$@" render "$pack" --frames $n --every 100 --size 96x64 --validate --profile "$xr" -o "$out/xr$n" \
        > "$out/xr$n.log" 2> "$out/xr$n.err" || fail "render --frames $n (3 in flight): exit $?: $(cat "$out/xr$n.err")"
    last=$(printf 'frame-%05d.png' $((n - 1)))
    [ -f "$out/xr$n/$last" ] || fail "render --frames $n (3 in flight) wrote no $last"
done
echo "render_outputs: ok"
