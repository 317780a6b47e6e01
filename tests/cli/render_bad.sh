#!/bin/sh
# SPDX-License-Identifier: MIT
# render_bad.sh OUTDIR PROFILE SLUICE...: each bad input of `sluice render`
# gets its message and exit code (2 a bad command line, 3 a folder or file
# that cannot be written, 1 a profile or device the renderer cannot use),
# and a frame file is only ever replaced by a complete new one.
#   - --size 0x0, 0x720, 99999x720 (above SLC_RENDER_SIZE_MAX), 12x;
#     --every 0; --tint foo; --backend host; no -o;
#   - -o under a regular file (ENOTDIR: refused even when the tests run as
#     root, which a folder without write permission would not be), -o a
#     regular file;
#   - a profile without cpu/render, one without gpu/render (named);
#   - a target the gpu/render budget cannot hold (16384x16384);
#   - no Vulkan device (VK_DRIVER_FILES naming no driver);
#   - an existing frame-00000.png: left as it was by a failed run, replaced
#     by a whole PNG by a run that succeeds; a frame that cannot be written
#     (its name taken by a folder) fails the run (exit 3) naming it; no
#     temporary is ever left in the folder.
set -u
out=$1
profile=$2
shift 2
fail() { echo "render_bad: $*" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out" || exit 1
pack=$out/city.pack
"$@" pack --synthetic city --size 1MiB -o "$pack" > "$out/pack.log" 2>&1 || fail "pack: $(cat "$out/pack.log")"

# expect CODE REGEX ARGS...: sluice render ARGS exits CODE with REGEX on stderr.
n=0
expect() {
    code=$1
    regex=$2
    shift 2
    n=$((n + 1))
    "$sluice_cmd_run" "$@" > "$out/case$n.out" 2> "$out/case$n.err"
    rc=$?
    [ "$rc" -eq "$code" ] || fail "case $n ($*): exit $rc, expected $code: $(cat "$out/case$n.err")"
    grep -Eq -- "$regex" "$out/case$n.err" || fail "case $n ($*): stderr lacks '$regex': $(cat "$out/case$n.err")"
}
# The command as one word for expect (SLUICE... may be an emulator and the binary).
sluice_cmd_run=$out/sluice.sh
{ printf '#!/bin/sh\nexec'; for w in "$@"; do printf " '%s'" "$w"; done; printf ' render "$@"\n'; } > "$sluice_cmd_run"
chmod +x "$sluice_cmd_run"

small="--frames 2 --size 160x90 --validate"
expect 2 "--size '0x0': width and height must each be in 1\.\.16384" "$pack" -o "$out/d" --size 0x0
expect 2 "--size '0x720': width and height must each be in 1\.\.16384" "$pack" -o "$out/d" --size 0x720
expect 2 "--size '99999x720': width and height must each be in 1\.\.16384" "$pack" -o "$out/d" --size 99999x720
expect 2 "--size '12x': expected WIDTHxHEIGHT" "$pack" -o "$out/d" --size 12x
expect 2 "--every '0': expected a count in 1\.\." "$pack" -o "$out/d" --every 0
expect 2 "--tint 'foo': expected lod" "$pack" -o "$out/d" --tint foo
expect 2 "--backend host: the renderer draws from the Vulkan backend's page pool" "$pack" -o "$out/d" --backend host
expect 2 "no -o DIR given" "$pack"
[ ! -e "$out/d" ] || fail "a refused command line created $out/d"

: > "$out/afile"
expect 3 "$out/afile/sub: cannot create the folder: Not a directory" "$pack" -o "$out/afile/sub" $small
expect 3 "$out/afile: not a folder" "$pack" -o "$out/afile" $small

sed '/^cpu\/render/d' "$profile" > "$out/no-cpu-render.profile"
sed '/^gpu\/render/d' "$profile" > "$out/no-gpu-render.profile"
expect 1 "profile '[^']*' declares no cpu/render budget" "$pack" -o "$out/d" $small --profile "$out/no-cpu-render.profile"
expect 1 "profile '[^']*' declares no gpu/render budget" "$pack" -o "$out/d" $small --profile "$out/no-gpu-render.profile"
expect 1 "the renderer cannot start on profile '[^']*' at 16384x16384 \(SLC_E_BUDGET_REFUSED" "$pack" -o "$out/d" --frames 1 \
    --size 16384x16384 --validate
grep -q "gpu/render" "$out/case$n.err" || fail "case $n: the budget that refused is not named: $(cat "$out/case$n.err")"
VK_DRIVER_FILES=$out/no-such-icd.json expect 1 "no Vulkan device" "$pack" -o "$out/d" $small

# A frame file is replaced only by a complete new one.
mkdir -p "$out/keep" || exit 1
printf 'old frame, must survive\n' > "$out/keep/frame-00000.png"
cp "$out/keep/frame-00000.png" "$out/old.png"
expect 1 "declares no cpu/render budget" "$pack" -o "$out/keep" $small --profile "$out/no-cpu-render.profile"
cmp "$out/keep/frame-00000.png" "$out/old.png" || fail "a failed run changed frame-00000.png"
"$sluice_cmd_run" "$pack" -o "$out/keep" $small --every 1 > "$out/ok.log" 2> "$out/ok.err" || fail "render: exit $?: $(cat "$out/ok.err")"
! grep -Eq 'VUID|Validation' "$out/ok.err" || fail "validation messages: $(cat "$out/ok.err")"
head -c 8 "$out/keep/frame-00000.png" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' || fail "frame-00000.png is not a PNG"
tail -c 8 "$out/keep/frame-00000.png" | od -An -tx1 | grep -q '49 45 4e 44 ae 42 60 82' || fail "frame-00000.png has no IEND: cut short"
rm -f "$out/keep/frame-00001.png" && mkdir -p "$out/keep/frame-00001.png/x" || exit 1
expect 3 "$out/keep/frame-00001.png: cannot" "$pack" -o "$out/keep" $small --every 1
left=$(cd "$out/keep" && ls -A | grep '^\.' | tr '\n' ' ')
[ -z "$left" ] || fail "temporaries left behind: $left"
echo "render_bad: ok ($n cases)"
