#!/bin/sh
# SPDX-License-Identifier: MIT
# texture_pin_tiles.sh OUTDIR PROFILES SLUICE...: [textures] pin_tiles = 1
# pins every tile and mip tail at create. budget check says so (text and
# JSON) and budget header emits it; a run whose texture pool holds every
# tile and tail serves every tile request from the first frame and loads
# none, its report naming what is pinned; a pool one page short is refused
# when the stream starts, naming both counts.
set -u
out=$1
profiles=$2
shift 2
mkdir -p "$out" || exit 1
fail() { echo "texture_pin_tiles: $*" >&2; exit 1; }

sum=$("$@" pack --synthetic city --size 1M --seed 11 --textures --texture-quality fast --texture-format rgba8 \
    -o "$out/t.pack") || fail "pack failed: $sum"
chunks=$("$@" inspect "$out/t.pack" --json | python3 -c '
import json, sys
print(sum(t["chunks"] for t in json.load(sys.stdin)["textures"]))') || fail "inspect --json"
[ "$chunks" -gt 4 ] || fail "$chunks texture chunks"
profile() { # PAGES FILE
    sed "s/^page_count       = 1024 .*/page_count = $1\npin_tiles = 1/" "$profiles/default.profile" > "$2"
    grep -q '^pin_tiles = 1$' "$2" || fail "no [textures] page_count in $profiles/default.profile"
}
profile "$chunks" "$out/all.profile"
msg=$("$@" budget check "$out/all.profile") || fail "budget check: $msg"
printf '%s\n' "$msg" | grep -q "^textures: rgba8; pool $chunks pages x 64 KiB = .*, eviction lru; every tile pinned at create; staging 40 MiB into atlas images, 160 tile loads a frame$" ||
    fail "budget check: $msg"
msg=$("$@" budget check "$out/all.profile" --json) || fail "budget check --json: $msg"
printf '%s\n' "$msg" | grep -q "^  \"textures\": {\"format\": \"rgba8\", \"page_count\": $chunks, \"eviction\": \"lru\", \"pin_tiles\": true, \"staging_size\": 41943040},$" ||
    fail "budget check --json: $msg"
msg=$("$@" budget header "$out/all.profile") || fail "budget header: $msg"
printf '%s\n' "$msg" | grep -q '^    .texture_pin_tiles = 1u,$' || fail "budget header: $msg"

msg=$("$@" run "$out/t.pack" --profile "$out/all.profile" --backend host --camera fly --frames 16 2>&1) ||
    fail "run: $msg"
printf '%s\n' "$msg" | grep -Eq "^texture pool: peak $chunks of $chunks pages used, $chunks pinned \(every tile and mip tail\), 0 tiles resident and 0 loading at the end; 0 tile loads started, 0 evictions; " ||
    fail "run: texture pool: $msg"
printf '%s\n' "$msg" | grep -q "^texture bytes: tiles 0 B read, 0 B uploaded; every tile and mip tail in $chunks pages, pinned at create$" ||
    fail "run: texture bytes: $msg"
printf '%s\n' "$msg" | grep -Eq '^served: ([0-9]+) tile requests: \1 resident when asked \(100.0%\)' ||
    fail "run: not every tile request served: $msg"

short=$((chunks - 1))
profile "$short" "$out/short.profile"
msg=$("$@" run "$out/t.pack" --profile "$out/short.profile" --backend host --frames 2 2>&1) && fail "run, short: $msg"
printf '%s\n' "$msg" | grep -q "stream: pinning every tile and mip tail of 4 textures needs $chunks pages; the texture pool's partition 'default' has $short" ||
    fail "run, short: $msg"
echo "texture_pin_tiles: ok ($chunks tiles and tails pinned)"
