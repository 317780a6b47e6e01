#!/bin/sh
# SPDX-License-Identifier: MIT
# run_textures.sh OUTDIR PROFILES SLUICE...: the texel format follows the
# device. `sluice pack --profile` takes the profile's [textures] format and
# [pool] page_size (astc6x6 for sbc-rpi5, rgba8 for default) unless
# --texture-format or --page-size says otherwise, and a profile it cannot
# read is refused before anything is written. `sluice run` on the Vulkan
# backend refuses, at init, a pack in a format the device does not sample,
# naming the format and what the device samples (lavapipe, which the tests
# run on, samples rgba8, bc1 and bc3 but no ASTC); the host backend, which
# samples nothing, streams it; a BC1 pack streams on lavapipe.
set -u
out=$1
profiles=$2
shift 2
mkdir -p "$out" || exit 1
fail() { echo "run_textures: $*" >&2; exit 1; }
city="--synthetic city --size 1M --seed 11 --textures --texture-quality fast"

# shellcheck disable=SC2086 # $city is a list of options
sum=$("$@" pack $city --profile "$profiles/sbc-rpi5.profile" -o "$out/astc.pack") || fail "astc pack failed: $sum"
printf '%s\n' "$sum" | grep -Eq "^  materials    2; textures 4 \(for 4 slots\), astc6x6, " ||
    fail "sbc-rpi5: not astc6x6: $sum"
printf '%s\n' "$sum" | grep -q " 64.0 KiB pages," || fail "sbc-rpi5: not its 64 KiB pages: $sum"
# shellcheck disable=SC2086
sum=$("$@" pack $city --profile "$profiles/auto-cluster.profile" -o "$out/cluster.pack") ||
    fail "auto-cluster pack failed: $sum"
printf '%s\n' "$sum" | grep -q ", astc6x6, " || fail "auto-cluster: not astc6x6: $sum"
printf '%s\n' "$sum" | grep -q " 32.0 KiB pages," || fail "auto-cluster: not its 32 KiB pages: $sum"
# shellcheck disable=SC2086
sum=$("$@" pack $city --profile "$profiles/default.profile" -o "$out/rgba8.pack") || fail "rgba8 pack failed: $sum"
printf '%s\n' "$sum" | grep -q ", rgba8, " || fail "default: not rgba8: $sum"
# The options win over the profile.
# shellcheck disable=SC2086
sum=$("$@" pack $city --profile "$profiles/sbc-rpi5.profile" --texture-format bc1 --page-size 16KiB \
    -o "$out/bc1.pack") || fail "bc1 pack failed: $sum"
printf '%s\n' "$sum" | grep -q ", bc1, " || fail "--texture-format bc1 did not win: $sum"
printf '%s\n' "$sum" | grep -q " 16.0 KiB pages," || fail "--page-size 16KiB did not win: $sum"
info=$("$@" inspect "$out/astc.pack") || fail "inspect failed: $info"
printf '%s\n' "$info" | grep -Eq "^  0 +facade 0 colour +[0-9]+x[0-9]+ astc6x6 " || fail "inspect: no astc6x6 texture: $info"

# A profile that cannot be read or parsed: its message, nothing written.
# shellcheck disable=SC2086
msg=$("$@" pack $city --profile "$out/none.profile" -o "$out/x.pack" 2>&1)
rc=$?
[ "$rc" -eq 3 ] || fail "a missing profile: exit code $rc, expected 3 (input): $msg"
printf '%s\n' "$msg" | grep -q "^sluice: $out/none.profile: No such file or directory$" || fail "missing profile: $msg"
printf '[profile]\nname = bad\n[textures]\nformat = etc2\n' > "$out/bad.profile"
# shellcheck disable=SC2086
msg=$("$@" pack $city --profile "$out/bad.profile" -o "$out/x.pack" 2>&1)
[ $? -eq 1 ] || fail "bad profile: exit code, expected 1: $msg"
printf '%s\n' "$msg" | grep -Fq "bad.profile:4: [textures] format: 'etc2' is not a texel format (rgba8, bc1, bc3, astc4x4, astc6x6 or astc8x8) (SLC_E_PROFILE_VALUE)" ||
    fail "bad profile: $msg"
[ ! -e "$out/x.pack" ] || fail "a refused command wrote its output"

# The device must sample the pack's format.
msg=$("$@" run "$out/astc.pack" --profile "$profiles/default.profile" --backend vulkan --frames 2 2>&1)
rc=$?
printf '%s\n' "$msg"
[ "$rc" -eq 1 ] || fail "astc6x6 on lavapipe: exit code $rc, expected 1"
printf '%s\n' "$msg" | grep -Eq "^sluice: error: stream: the pack's textures are astc6x6, which the vulkan device llvmpipe .* cannot sample \(it samples rgba8, bc1 and bc3\) \(SLC_E_UNSUPPORTED\)$" ||
    fail "astc6x6 on lavapipe: no refusal naming the formats"
printf '%s\n' "$msg" | grep -q "^sluice run: the stream cannot start with pack 'astc.pack' and profile 'default' (SLC_E_UNSUPPORTED)$" ||
    fail "astc6x6 on lavapipe: no 'cannot start' line"
# The atlas images were refused first, and the tiles kept in host memory.
printf '%s\n' "$msg" | grep -Eq "^sluice run: notice: the texture pool stays in host memory \(textured surfaces show their materials' factors\): vulkan: llvmpipe .* does not sample astc6x6 \(VkFormat 165\) in optimal tiling" ||
    fail "astc6x6 on lavapipe: no notice of the atlas refused"
msg=$("$@" run "$out/astc.pack" --profile "$profiles/default.profile" --backend host --frames 2 2>&1) ||
    fail "astc6x6 on the host backend failed: $msg"
printf '%s\n' "$msg" | grep -q "^verdict: ok" || fail "astc6x6 on the host backend: $msg"
msg=$("$@" run "$out/bc1.pack" --profile "$profiles/default.profile" --backend vulkan --frames 2 2>&1) ||
    fail "bc1 on lavapipe failed: $msg"
printf '%s\n' "$msg" | grep -q "^verdict: ok" || fail "bc1 on lavapipe: $msg"
# The texture pool: every texture's mip tail pinned at create; the camera's
# tile requests (by texel density) loaded and evicted in it; its eviction
# log the same with 0, 1 and 2 workers and on both backends. A pool of 20
# pages makes it evict.
sed 's/^page_count       = 1024 .*/page_count = 20/' "$profiles/default.profile" > "$out/tiles20.profile"
grep -q '^page_count = 20$' "$out/tiles20.profile" || fail "tiles20.profile: no [textures] page_count to edit"
first=""
for run in "host 0" "host 1" "host 2" "vulkan 2"; do
    backend=${run% *}
    workers=${run#* }
    msg=$("$@" run "$out/rgba8.pack" --profile "$out/tiles20.profile" --backend "$backend" --workers "$workers" \
        --camera fly --frames 16 2>&1) || fail "fly on $backend with $workers workers failed: $msg"
    line=$(printf '%s\n' "$msg" | grep -E "^(texture pool|texture bytes|served: [0-9]+ tile requests): ") ||
        fail "no texture pool line: $msg"
    printf '%s\n' "$line" | grep -Eq "^served: [1-9][0-9]* tile requests: [1-9][0-9]* resident when asked " ||
        fail "$backend/$workers: no tile requested, or none resident when asked: $line"
    printf '%s\n' "$line" | grep -Eq "^texture pool: peak 20 of 20 pages used, 4 pinned \(mip tails\), 16 tiles resident and 0 loading at the end; [0-9]+ tile loads started, [1-9][0-9]* evictions; " ||
        fail "$backend/$workers: tails not pinned, or no tile streamed and evicted: $line"
    [ -z "$first" ] && first=$line
    [ "$line" = "$first" ] || fail "the texture pool differs on $backend with $workers workers: $line, not $first"
    printf '%s\n' "$msg" | grep -q "^verdict: ok" || fail "$backend/$workers: $msg"
done
echo "$first"
# The bytes: every tile load uploads a whole tile (rgba8: (tile + 2 border)^2
# x 4 bytes), the tails pinned are the textures' tails as inspect counts
# them, and the tiles' bytes are part of the stream's.
json=$("$@" run "$out/rgba8.pack" --profile "$out/tiles20.profile" --backend host --camera fly --frames 16 --json) ||
    fail "fly --json failed"
info=$("$@" inspect "$out/rgba8.pack" --json) || fail "inspect --json failed"
python3 -c '
import json, sys
run, info = json.loads(sys.argv[1]), json.loads(sys.argv[2])
tp, st = run["texture_pool"], run["stream"]
t = info["textures"][0]
tile = (t["tile"] + 2 * t["border"]) ** 2 * 4
assert all(x["format"] == "rgba8" and x["tile"] == t["tile"] and x["border"] == t["border"] for x in info["textures"])
assert tp["tile_bytes_uploaded"] == tp["tile_loads_started"] * tile, (tp, tile)
assert tp["tail_bytes"] == sum(x["tail_bytes"] for x in info["textures"]), tp
assert 0 < tp["tile_bytes_read"] <= st["bytes_read"] and tp["tile_bytes_uploaded"] <= st["bytes_uploaded"], (tp, st)
# The texture memory four ways, from the records inspect reads: the pool,
# every chunk resident (a page each), every level in RGBA8, the floor of a
# 1280x720 frame (default [render]) at 2 layers (colour and normal).
m = run["texture_memory"]
page = info["page_size"]
assert m["pool_bytes"] == 20 * page, m
assert m["all_resident_pages"] == sum(x["chunks"] for x in info["textures"]), m
assert m["all_resident_bytes"] == m["all_resident_pages"] * page, m
rgba8 = sum(max(1, x["width"] >> l) * max(1, x["height"] >> l) * 4 for x in info["textures"] for l in range(x["levels"]))
assert m["rgba8_bytes"] == rgba8, (m, rgba8)
layers = max(len(x["textures"]) for x in info["materials"])
assert layers == 2 and m["layers"] == layers and m["format"] == "rgba8" and m["bytes_per_texel"] == 4, m
assert m["frame"] == [1280, 720] and m["floor_bytes"] == 1280 * 720 * layers * 4 / 3 * 4, m
' "$json" "$info" || fail "the texture pool's bytes do not add up"
# The timeline and the Chrome trace have the texture pool's rows, and the
# eviction log its entries, tagged "t", as many as the report counts.
msg=$("$@" run "$out/rgba8.pack" --profile "$out/tiles20.profile" --backend host --camera fly --frames 16 \
    --svg "$out/tiles.svg" --chrome-trace "$out/tiles.json" --evict-log "$out/tiles.evict" 2>&1) ||
    fail "fly with --svg failed: $msg"
want=$(printf '%s\n' "$msg" | sed -n 's/^texture pool: .* eviction log \([0-9]*\) entries, .*/\1/p')
got=$(grep -c '^t [0-9]* [0-9]* [-0-9]* [0-9]* [-0-9]* [0-9]*$' "$out/tiles.evict")
[ -n "$want" ] && [ "$want" -eq "$got" ] || fail "tiles.evict: $got texture pool entries, the report says '$want'"
want=$(printf '%s\n' "$msg" | sed -n 's/^eviction log: \([0-9]*\) entries, .*/\1/p')
got=$(grep -c '^[0-9]' "$out/tiles.evict")
[ -n "$want" ] && [ "$want" -eq "$got" ] || fail "tiles.evict: $got geometry entries, the report says '$want'"
grep -q "^# the texture pool's entries: t seq frame evicted page loaded partition" "$out/tiles.evict" ||
    fail "tiles.evict: no header for the texture pool's entries"
grep -q ">texture pool pages used</text>" "$out/tiles.svg" && grep -q ">of 20</text>" "$out/tiles.svg" ||
    fail "tiles.svg: no texture pool row"
grep -Eq ">max [1-9][0-9]* a frame</text>" "$out/tiles.svg" || fail "tiles.svg: no tile misses row"
python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["name"] == "texture pool"]
assert len(ev) == 16, len(ev)
assert max(e["args"]["pages used"] for e in ev) == 20, ev
assert sum(e["args"]["tile misses"] for e in ev) > 0, ev
' "$out/tiles.json" || fail "tiles.json: no texture pool counters"

# A tile that fails its checksum fails the verdict as a chunk does, and the
# report names the texture, level and tile (chunk 0: texture 0's first
# tile of level 0, which the fly-through asks for); a corrupt mip tail
# (texture 0's chunk 20, after its 20 tiles) stops the stream at create.
chunk_at() {
    python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read(4096)
table = struct.unpack_from("<Q", d, 64)[0]             # header: chunk_offset
f = open(sys.argv[1], "rb"); f.seek(table + 48 * int(sys.argv[2]))
print(struct.unpack("<Q", f.read(8))[0] + 16)' "$1" "$2"
}
off=$(chunk_at "$out/rgba8.pack" 0) || fail "cannot read the chunk table"
"$(dirname "$0")/flip_byte.sh" "$out/rgba8.pack" "$out/badtile.pack" "$off" || fail "flip_byte.sh"
msg=$("$@" run "$out/badtile.pack" --profile "$out/tiles20.profile" --backend host --camera fly --frames 16 2>&1)
rc=$?
[ "$rc" -eq 4 ] || fail "a corrupt tile: exit code $rc, expected 4: $msg"
printf '%s\n' "$msg" | grep -Eq "^  - [1-9][0-9]* chunk loads failed \(first: chunk 0 \(texture 0 'facade 0 colour', level 0, tile 0\) SLC_E_PACK_CHUNK_CHECKSUM \(frame [0-9]+\)" ||
    fail "a corrupt tile: no reason naming the texture, level and tile: $msg"
msg=$("$@" run "$out/badtile.pack" --profile "$out/tiles20.profile" --backend host --camera fly --frames 16 --json 2>/dev/null)
[ $? -eq 4 ] || fail "a corrupt tile, --json: exit code, expected 4"
printf '%s\n' "$msg" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["verdict"]["ok"] is False, r["verdict"]
first = r["load_failures"]["first"][0]
assert first["chunk"] == 0 and first["status"] == "SLC_E_PACK_CHUNK_CHECKSUM", first
assert first["texture"] == {"index": 0, "name": "facade 0 colour", "tail": False, "level": 0, "tile": 0}, first
' || fail "a corrupt tile, --json: the failure does not name its texture"
off=$(chunk_at "$out/rgba8.pack" 20) || fail "cannot read the chunk table"
"$(dirname "$0")/flip_byte.sh" "$out/rgba8.pack" "$out/badtail.pack" "$off" || fail "flip_byte.sh"
msg=$("$@" run "$out/badtail.pack" --profile "$out/tiles20.profile" --backend host --frames 2 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "a corrupt mip tail: exit code $rc, expected 1: $msg"
printf '%s\n' "$msg" | grep -Fq "stream: pinned chunk 20 (a texture's mip tail) could not be loaded: SLC_E_PACK_CHUNK_CHECKSUM" ||
    fail "a corrupt mip tail: no message naming it: $msg"

# budget fit models the texture pool: the mip tails pinned, the frames'
# distinct tiles against its pages. 20 pages: it holds only with fallback
# (exit 4), naming the first frame and tile over; 1024 pages: it holds.
msg=$("$@" budget fit "$out/tiles20.profile" "$out/rgba8.pack" --camera fly --frames 16 2>&1)
rc=$?
[ "$rc" -eq 4 ] || fail "fit, 20 texture pages: exit code $rc, expected 4: $msg"
printf '%s\n' "$msg" | grep -Eq "^texture pool: 20 pages, 4 pinned \(mip tails of 4 textures\); working set worst [0-9]+ at frame [0-9]+, in flight worst [0-9]+ over frames [0-9]+\.\.[0-9]+; 1440 tile requests " ||
    fail "fit, 20 texture pages: no texture pool line: $msg"
printf '%s\n' "$msg" | grep -q "^verdict: holds only with fallback$" || fail "fit, 20 texture pages: $msg"
printf '%s\n' "$msg" | grep -Eq "^  texture pool working set: frame 0, chunk [0-9]+ \(texture [0-9] 'facade [01] colour', level [0-9]+, tile [0-9]+\): [0-9]+ pages, has 20 " ||
    fail "fit, 20 texture pages: no break naming the tile: $msg"
msg=$("$@" budget fit "$out/tiles20.profile" "$out/rgba8.pack" --camera fly --frames 16 --json 2>&1)
printf '%s\n' "$msg" | python3 -c '
import json, sys
r = json.load(sys.stdin)
t = r["texture_pool"]
assert t["textures"] == 4 and t["pages"] == 20 and t["pinned"] == 4 and t["working_set"]["worst"] > 20, t
assert r["tile_requests"] == 1440, r["tile_requests"]
b = r["breaks"]
assert b["texture_working_set"]["limit"] == 20 and b["texture_pinned"] is None and b["texture_pool_missing"] is False, b
assert r["verdict"] == "holds only with fallback", r["verdict"]
' || fail "fit --json: the texture pool is not reported: $msg"
msg=$("$@" budget fit "$profiles/default.profile" "$out/rgba8.pack" --camera fly --frames 16 2>&1) ||
    fail "fit, the default profile: does not hold: $msg"
printf '%s\n' "$msg" | grep -Eq "^texture pool: 1024 pages, 4 pinned " || fail "fit, default: $msg"
# Tails that do not fit: fit says the stream refuses to start, and it does.
sed 's/^page_count       = 1024 .*/page_count = 3/' "$profiles/default.profile" > "$out/tiles3.profile"
msg=$("$@" budget fit "$out/tiles3.profile" "$out/rgba8.pack" --camera fly --frames 4 2>&1)
rc=$?
[ "$rc" -eq 5 ] || fail "fit, 3 texture pages: exit code $rc, expected 5: $msg"
printf '%s\n' "$msg" | grep -Fq "  texture pool: the mip tails need 4 pages, the pool has 3: the stream refuses to start" ||
    fail "fit, 3 texture pages: $msg"
msg=$("$@" run "$out/rgba8.pack" --profile "$out/tiles3.profile" --backend host --frames 2 2>&1)
[ $? -eq 1 ] || fail "run, 3 texture pages: not refused: $msg"
printf '%s\n' "$msg" | grep -Fq "stream: pinning the mip tails of 4 textures needs 4 pages; the texture pool's partition 'default' has 3" ||
    fail "run, 3 texture pages: $msg"

# bench evict replays the texture pool on its own (its pages, the tails
# pinned, its tile requests): OPT loads no more than any policy, and each
# pool policy's replay loads exactly what the stream loads into the texture
# pool with that policy. The replay has no upload cap: the default
# profile's tile belt is large enough that the tile cap (160 loads a
# frame) defers no tile of this workload.
sed 's/^page_count       = 1024 .*/page_count = 100/' "$profiles/default.profile" > "$out/tiles100.profile"
msg=$("$@" bench evict "$out/rgba8.pack" --profile "$out/tiles100.profile" --camera fly --frames 60 --json 2>&1) ||
    fail "bench evict: $msg"
printf '%s\n' "$msg" | python3 -c '
import json, sys
r = json.load(sys.stdin)
t = r["texture_pool"]
assert t["pages"] == 100 and t["pinned"] == 4 and t["requests"] > 0, t
pol = {p["name"]: p for p in t["policies"]}
opt = pol["opt"]["loads"]
assert opt > 0 and all(p["loads"] >= opt for p in t["policies"]), t
for name in ("lru", "priority", "predict"):
    assert pol[name]["stream"]["loads"] == pol[name]["loads"], (name, pol[name])
assert pol["lru"]["loads"] > opt, "the workload should make LRU evict more than OPT"
assert r["pinned"] == 3 and all(p["name"] != "" for p in r["policies"]), r
' || fail "bench evict --json: the texture pool's replay: $msg"
msg=$("$@" bench evict "$out/rgba8.pack" --profile "$out/tiles100.profile" --camera fly --frames 60 2>&1) ||
    fail "bench evict: $msg"
printf '%s\n' "$msg" | grep -Eq "^texture pool: [0-9]+ tile requests, 100 pages \(4 pinned: mip tails\), eviction lru$" ||
    fail "bench evict: no texture pool table: $msg"

# bench stream measures the tiles apart: each tile loaded once, verified,
# through the texture pool, against their plain decode; the geometry rows
# stream the geometry chunks only, the mip tails pinned at create.
msg=$("$@" bench stream "$out/rgba8.pack" --profile "$profiles/default.profile" --reps 1 --json 2>&1) ||
    fail "bench stream: $msg"
printf '%s\n' "$msg" | python3 -c '
import json, sys
r = json.load(sys.stdin)
t = r["tiles"]
assert t["chunks"] > 0 and t["loads"] == t["chunks"] and t["tails_left_out"] == 4, t
assert t["texture_pool_pages"] == 1024 and t["decoded_bytes"] > 0, t
assert t["raw_gb_per_cpu_s"] > 0 and t["stream_gb_per_cpu_s"] > 0 and t["loads_per_cpu_s"] > 0, t
s = [p for p in r["throughput"] if p["path"] == "stream"]
assert s and all(p["loads"] == s[0]["loads"] for p in s) and s[0]["loads"] + t["chunks"] + 4 == r["pack"]["chunks"], s
' || fail "bench stream --json: the tiles are not measured: $msg"
msg=$("$@" bench stream "$out/rgba8.pack" --profile "$profiles/default.profile" --reps 1 2>&1) ||
    fail "bench stream: $msg"
printf '%s\n' "$msg" | grep -Eq "^tiles +[1-9][0-9]* +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+x +[0-9]+$" ||
    fail "bench stream: no tiles row: $msg"

# A profile with no texture pool cannot stream a pack with textures.
grep -v -e '^page_count       = 1024 ' -e '^staging_size     = 40 MiB ' "$profiles/default.profile" > "$out/notiles.profile"
msg=$("$@" budget fit "$out/notiles.profile" "$out/rgba8.pack" --camera fly --frames 4 2>&1)
rc=$?
[ "$rc" -eq 5 ] || fail "fit, no texture pool: exit code $rc, expected 5: $msg"
printf '%s\n' "$msg" | grep -Fq "  texture pool: the pack has 4 textures, but the profile declares no texture pool ([textures] page_count): the stream refuses to start" ||
    fail "fit, no texture pool: $msg"
msg=$("$@" bench stream "$out/rgba8.pack" --profile "$out/notiles.profile" --reps 1 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "bench stream, no texture pool: exit code $rc, expected 1: $msg"
printf '%s\n' "$msg" | grep -Fq "sluice bench stream: the pack has 4 textures, but profile 'default' declares no texture pool ([textures] page_count) to stream them in" ||
    fail "bench stream, no texture pool: $msg"
msg=$("$@" bench evict "$out/rgba8.pack" --profile "$out/notiles.profile" --frames 4 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "bench evict, no texture pool: exit code $rc, expected 1: $msg"
printf '%s\n' "$msg" | grep -Fq "sluice bench evict: the pack has 4 textures, but profile 'default' declares no texture pool ([textures] page_count) to stream them in" ||
    fail "bench evict, no texture pool: $msg"
msg=$("$@" run "$out/rgba8.pack" --profile "$out/notiles.profile" --backend host --frames 2 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "no texture pool: exit code $rc, expected 1: $msg"
printf '%s\n' "$msg" | grep -Fq "stream: the pack has 4 textures, but profile 'default' declares no texture pool ([textures] page_count) to pin their mip tails in (SLC_E_UNSUPPORTED)" ||
    fail "no texture pool: $msg"

# The tile cap: a 1 MiB tile belt holds 4 tile loads a frame
# (1 MiB / (2 frames in flight + 2) / 64 KiB): the first frame starts 4 of
# the 130 tiles it asks for, on the host backend as on Vulkan, and fit says
# the workload needs deferral, naming the request that passed the cap.
sed 's/^staging_size     = 40 MiB .*/staging_size = 1 MiB/' "$profiles/default.profile" > "$out/tilecap.profile"
msg=$("$@" run "$out/rgba8.pack" --profile "$out/tilecap.profile" --backend host --camera fly --frames 1 2>&1) ||
    fail "run, tile cap 4: $msg"
printf '%s\n' "$msg" | grep -Eq "^texture pool: .*; 4 tile loads started, " || fail "run, tile cap 4: $msg"
msg=$("$@" budget fit "$out/tilecap.profile" "$out/rgba8.pack" --camera fly --frames 16 2>&1)
rc=$?
[ "$rc" -eq 4 ] || fail "fit, tile cap 4: exit code $rc, expected 4: $msg"
printf '%s\n' "$msg" | grep -Eq "^new tiles: worst 130 at frame 0, tile cap 4 a frame \(\[textures\] staging_size\)$" ||
    fail "fit, tile cap 4: $msg"
printf '%s\n' "$msg" | grep -Eq "^  tile upload: frame 0, chunk [0-9]+ \(texture [0-9]+ '.*', level 0, tile [0-9]+\): 130 new tiles, tile cap 4 a frame" ||
    fail "fit, tile cap 4: no tile upload break: $msg"
printf '%s\n' "$msg" | grep -q "^verdict: needs deferral$" || fail "fit, tile cap 4: $msg"
# A belt of one page holds less than a page for each of the 4 frames a
# slot stays taken: the stream refuses to start, and fit says so.
sed 's/^staging_size     = 40 MiB .*/staging_size = 64 KiB/' "$profiles/default.profile" > "$out/tilecap0.profile"
msg=$("$@" run "$out/rgba8.pack" --profile "$out/tilecap0.profile" --backend host --frames 1 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "run, a one-page tile belt: exit code $rc, expected 1: $msg"
printf '%s\n' "$msg" | grep -Fq "stream: [textures] staging_size 65536 holds less than one 65536-byte page for each of 4 frames (frames_in_flight + load_frames + 1)" ||
    fail "run, a one-page tile belt: $msg"
msg=$("$@" budget fit "$out/tilecap0.profile" "$out/rgba8.pack" --frames 2 2>&1)
rc=$?
[ "$rc" -eq 5 ] || fail "fit, a one-page tile belt: exit code $rc, expected 5: $msg"
printf '%s\n' "$msg" | grep -Fq "  tile cap: [textures] staging_size 65536 B holds less than a page for each frame a slot stays taken: the stream refuses to start" ||
    fail "fit, a one-page tile belt: $msg"
echo "run_textures: ok"
