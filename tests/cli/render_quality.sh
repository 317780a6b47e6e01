#!/bin/sh
# SPDX-License-Identifier: MIT
# render_quality.sh OUTDIR PROFILE SLUICE...: `sluice render --reference`
# on a 1 MiB city at 160x90:
#   - under PROFILE: exit 0, the report's quality line, --quality-json
#     parsed (a record a frame, PSNR null where identical, the summary the
#     text's), --quality-svg and the run's --svg with their PSNR plot and row;
#     the same quality JSON byte for byte with 0 and 2 workers;
#   - under [render] max_draws = 8: the reference still draws every request;
#   - under a 16-page pool with [quality] min_psnr_db = 99 (unreachable):
#     exit 4, the frame and both numbers named on stderr, the report's
#     "quality floor: FAILED", the verdict FAILED with the frame as its
#     reason, the JSON's floor false; --psnr-threshold
#     instead of the profile's floor, named as such;
#   - bad command lines (exit 2): --quality-json, --quality-svg or
#     --psnr-threshold without --reference, --psnr-threshold 0,
#     --diff-threshold 256; outputs that cannot be written (exit 3): one
#     naming the pack (left as it was), one in a folder that does not exist
#     (an existing --quality-json left as it was, no temporary left).
set -u
out=$1
profile=$2
shift 2
fail() { echo "render_quality: $*" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out" || exit 1
pack=$out/city.pack
"$@" pack --synthetic city --size 1MiB -o "$pack" > "$out/pack.log" 2>&1 || fail "pack: $(cat "$out/pack.log")"
small="--frames 6 --size 160x90"

# run NAME CODE ARGS...: sluice render ARGS exits CODE; NAME.out and NAME.err kept.
run() {
    name=$1
    code=$2
    shift 2
    "$sluice_cmd_run" "$@" > "$out/$name.out" 2> "$out/$name.err"
    rc=$?
    [ "$rc" -eq "$code" ] || fail "$name ($*): exit $rc, expected $code: $(cat "$out/$name.err")"
}
has() { grep -Eq -- "$2" "$out/$1" || fail "$1 lacks '$2': $(cat "$out/$1")"; }
sluice_cmd_run=$out/sluice.sh
{ printf '#!/bin/sh\nexec'; for w in "$@"; do printf " '%s'" "$w"; done; printf ' render "$@"\n'; } > "$sluice_cmd_run"
chmod +x "$sluice_cmd_run"

# Under the profile.
run ok 0 "$pack" --profile "$profile" --reference $small --workers 0 --quality-json "$out/q0.json" \
    --quality-svg "$out/q.svg" --svg "$out/run.svg"
has ok.out "^quality: PSNR min ([0-9]+\.[0-9]{2}|inf) dB \(frame [0-9]+\), p5 ([0-9]+\.[0-9]{2}|inf) dB, median ([0-9]+\.[0-9]{2}|inf) dB; pixels over threshold: max [0-9]+\.[0-9]{2}% \(frame [0-9]+\)$"
has ok.out "^render: 6 frames rendered at 160x90, none written \(no -o DIR\)$"
python3 - "$out/q0.json" "$out/ok.out" <<'PY' || fail "the quality JSON is not what it should be: $(cat "$out/q0.json")"
import json, re, sys
q = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
assert q["reference"].endswith("-reference") and q["width"] == 160 and q["height"] == 90, q
assert q["diff_threshold"] == 8
frames = q["frames"]
assert [f["frame"] for f in frames] == list(range(6)), frames
for f in frames:
    assert f["psnr_db"] is None or f["psnr_db"] > 0, f
    assert (f["psnr_db"] is None) <= (f["over_pixels"] == 0), f
s = q["summary"]
finite = [f["psnr_db"] for f in frames if f["psnr_db"] is not None]
assert s["frames"] == 6
assert s["min_psnr_db"] == (min(finite) if finite else None), s
worst = min(range(6), key=lambda i: (frames[i]["psnr_db"] if frames[i]["psnr_db"] is not None else 1e300, i))
assert s["worst_frame"] == worst, (s, worst)
m = re.search(r"^quality: PSNR min (\S+) dB \(frame (\d+)\)", text, re.M)
shown = "inf" if s["min_psnr_db"] is None else "%.2f" % s["min_psnr_db"]
assert m.group(1) == shown and int(m.group(2)) == s["worst_frame"], (m.groups(), s)
PY
has q.svg "luminance PSNR, 6 frames"
has q.svg "</svg>"
has run.svg ">PSNR against the reference</text>"
run ok2 0 "$pack" --profile "$profile" --reference $small --workers 2 --quality-json "$out/q2.json" --json
cmp -s "$out/q0.json" "$out/q2.json" || fail "the quality JSON differs with 0 and 2 workers"
python3 - "$out/ok2.out" "$out/q2.json" "$profile" <<'PY' || fail "the --json report's quality member is not the quality JSON's summary"
import json, re, sys
r = json.load(open(sys.argv[1]))
q = json.load(open(sys.argv[2]))
floor = re.search(r"^min_psnr_db\s*=\s*([0-9.]+)", open(sys.argv[3]).read(), re.M)
assert r["quality"]["summary"] == q["summary"], (r["quality"], q["summary"])
assert r["quality"]["reference"] == q["reference"] and r["quality"]["floor"] == q["floor"]
assert r["quality"]["min_psnr_db"] == (float(floor.group(1)) if floor else None), (r["quality"], floor)
assert r["quality"]["diff_threshold"] == 8
PY

# No floor here (the profile is made to drop draws). The reference's lists hold every object at its largest level even where
# the profile's do not: under max_draws = 8 the profile's frames lose
# requests, the reference's none (a reference that lost one fails).
sed -e 's/^max_draws *=.*/max_draws = 8/' -e '/^min_psnr_db/d' "$profile" > "$out/few-draws.profile"
run lists 0 "$pack" --profile "$out/few-draws.profile" --reference $small
has lists.out "^render: [0-9]+ requests not drawn"
has lists.out "^quality: PSNR min [0-9]+\.[0-9]{2} dB"

# An unreachable floor.
sed -e 's/^page_count *=.*/page_count = 16/' -e 's/^name *=.*/name = tiny-floor/' -e '/^\[quality\]/,$d' \
    "$profile" > "$out/tiny.profile"
printf '[quality]\nmin_psnr_db = 99\n' >> "$out/tiny.profile"
run floor 4 "$pack" --profile "$out/tiny.profile" --reference $small --quality-json "$out/floor.json"
has floor.err "^sluice render: quality: frame [0-9]+ has PSNR [0-9]+\.[0-9]{2} dB, below the floor of 99 dB \(the profile's \[quality\] min_psnr_db\)$"
has floor.out "^quality floor: FAILED$"
has floor.out "^verdict: FAILED$"
has floor.out "^  - quality: frame [0-9]+ has PSNR [0-9]+\.[0-9]{2} dB, below the floor of 99 dB \(the profile's \[quality\] min_psnr_db\)$"
frame=$(sed -n 's/^sluice render: quality: frame \([0-9]*\) .*/\1/p' "$out/floor.err")
has floor.json "\"floor\": \{\"holds\": false, \"frame\": $frame\}\}"
has floor.json "\"min_psnr_db\": 99.000,"
run threshold 4 "$pack" --profile "$out/tiny.profile" --reference $small --psnr-threshold 98.5
has threshold.err "below the floor of 98\.5 dB \(--psnr-threshold\)$"
run holds 0 "$pack" --profile "$out/tiny.profile" --reference $small --psnr-threshold 0.001
has holds.out "^quality floor: holds \(every frame at or above 0\.001 dB\)$"

# Bad command lines.
run noref1 2 "$pack" $small --quality-json "$out/x.json"
has noref1.err "sluice render: --quality-json, --quality-svg and --psnr-threshold need --reference"
run noref2 2 "$pack" -o "$out/d" $small --quality-svg "$out/x.svg"
has noref2.err "need --reference"
run noref3 2 "$pack" -o "$out/d" $small --psnr-threshold 30
has noref3.err "need --reference"
run zero 2 "$pack" --reference $small --psnr-threshold 0
has zero.err "--psnr-threshold '0': expected dB above 0, at most 1000"
run diff 2 "$pack" --reference $small --diff-threshold 256
has diff.err "--diff-threshold '256': expected levels in 0\.\.255"
[ ! -e "$out/x.json" ] && [ ! -e "$out/x.svg" ] && [ ! -e "$out/d" ] || fail "a refused command line wrote a file"

# Outputs that cannot be written.
cp "$pack" "$out/pack.copy"
run input 3 "$pack" --profile "$profile" --reference $small --quality-json "$pack"
has input.err "sluice render: $pack: is an input \($pack\); refusing to overwrite it"
cmp -s "$pack" "$out/pack.copy" || fail "the pack was changed"
echo old > "$out/keep.json"
run nodir 3 "$pack" --profile "$profile" --reference $small --quality-json "$out/keep.json" \
    --quality-svg "$out/no-such-dir/q.svg"
has nodir.err "sluice render: $out/no-such-dir/q.svg: cannot create"
[ "$(cat "$out/keep.json")" = old ] || fail "a failed command replaced $out/keep.json"
leftover=$(ls -A "$out" | grep '^\.' || true)
[ -z "$leftover" ] || fail "temporaries left: $leftover"
echo "render_quality: ok"
