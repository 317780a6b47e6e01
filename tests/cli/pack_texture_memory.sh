#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_texture_memory.sh OUTDIR GENERATOR SLUICE...: the packer's memory for
# a texture is bounded by the image, whatever its tiles. An 8192 x 8192 RGBA
# PNG (256 MiB as RGBA8, written by GENERATOR, scripts/texture-quad.py) on
# one quad packs with --jobs 2 into one texture of 14 levels, and the
# process's peak resident memory (python3's resource module, over the
# child) stays under what docs/packing.md states: the decoded image and its
# mip chain (4/3 of it), 7/3 of the RGBA8 size, plus 96 MiB for the rest of
# the process and the threads' tiles. inspect counts the texture's stored
# bytes a payload once (its identical tiles share payloads): less than the
# file, in the table and in --json.
set -u
out=$1
gen=$2
shift 2
mkdir -p "$out" || exit 1
fail() { echo "pack_texture_memory: $*" >&2; exit 1; }

python3 "$gen" 8192 "$out" || fail "the generator failed"
rgba=$((8192 * 8192 * 4))
limit_kib=$(((rgba / 3 * 7 + 96 * 1048576) / 1024))
peak_kib=$(python3 - "$out/sum" "$@" pack "$out/quad.gltf" --jobs 2 -o "$out/quad.pack" <<'PY'
import resource, subprocess, sys
with open(sys.argv[1], "w") as f:
    rc = subprocess.run(sys.argv[2:], stdout=f, stderr=subprocess.STDOUT).returncode
if rc != 0:
    sys.exit(rc)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
) || fail "pack failed: $(cat "$out/sum")"
cat "$out/sum"
printf 'pack_texture_memory: peak %s KiB, limit %s KiB (RGBA8 %s KiB: %s x)\n' "$peak_kib" "$limit_kib" \
    "$((rgba / 1024))" "$(awk -v p="$peak_kib" -v r="$((rgba / 1024))" 'BEGIN { printf "%.2f", p / r }')"
[ "$peak_kib" -le "$limit_kib" ] || fail "peak resident memory $peak_kib KiB is above $limit_kib KiB"
# The texture is the whole image, level 0 exact, 14 levels.
grep -Eq "^    0 +8192x8192 +colour +rgba8 +exact " "$out/sum" || fail "no 8192x8192 texture row in the summary"
info=$("$@" inspect "$out/quad.pack") || fail "inspect failed: $info"
printf '%s\n' "$info" | grep -Eq "^  0 +tex.png +8192x8192 rgba8 +color +14 " || fail "inspect: not one 8192x8192 texture of 14 levels: $info"
# Its stored bytes count each payload once: the repeating bricks make many
# identical tiles, which share one, so the texture is less than the file.
stored=$(printf '%s\n' "$info" | awk '$1 == "0" && $2 == "tex.png" { print $10 }')
size=$(wc -c <"$out/quad.pack")
[ -n "$stored" ] && [ "$stored" -lt "$size" ] || fail "inspect: the texture's stored bytes ($stored) are not below the file's ($size)"
json=$("$@" inspect --json "$out/quad.pack") || fail "inspect --json failed"
printf '%s\n' "$json" | grep -Eq "\"tiles\": [0-9]+, \"chunks\": [0-9]+, \"stored_bytes\": $stored," ||
    fail "inspect --json: not $stored stored bytes"
rm -f "$out/tex.png" "$out/quad.pack"
echo "pack_texture_memory: ok"
