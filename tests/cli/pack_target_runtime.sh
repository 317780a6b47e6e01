#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_target_runtime.sh OUTDIR PACK_READ SLUICE: `sluice pack
# --target-runtime`. The same synthetic city packed with --codec auto holds
# meshopt chunks, says which runtime build options it needs, and the runtime
# built without meshopt (PACK_READ, tests/support/pack_read.c) refuses it;
# packed for `stored,lz4` it holds no meshopt chunk (inspect --json), needs
# only SLUICE_CODEC_LZ4, and that runtime loads every chunk; for `stored`,
# every chunk is stored. A --codec outside the list and an unknown codec
# are usage errors (exit 2) that write nothing.
set -u
out=$1
reader=$2
sluice=$3 # one program: the tests run it natively
mkdir -p "$out" || exit 1
fail() { echo "pack_target_runtime: $*" >&2; exit 1; }
# inspect_json CASE PACK CODECS NEEDS: inspect --json's codecs match the
# extended regex CODECS and runtime_needs is exactly [NEEDS].
inspect_json() {
    json=$("$sluice" inspect --json "$2") || fail "$1: inspect failed"
    printf '%s\n' "$json" | grep -Eq "\"codecs\": \\{.*$3" || fail "$1: codecs: $(printf '%s\n' "$json" | grep codecs)"
    printf '%s\n' "$json" | grep -qxF " \"runtime_needs\": [$4]," ||
        fail "$1: runtime_needs: $(printf '%s\n' "$json" | grep runtime_needs)"
}
# refused MESSAGE ARGS...: sluice pack ARGS exits 2 with MESSAGE as a line.
refused() {
    want=$1
    shift
    msg=$("$sluice" pack "$@" 2>&1)
    rc=$?
    [ "$rc" -eq 2 ] || fail "pack $*: exit code $rc, expected 2"
    printf '%s\n' "$msg" | grep -qxF "$want" || fail "pack $*: message: $msg"
}

auto="$out/auto.pack"
sum=$("$sluice" pack --synthetic city --size 2M -o "$auto") || fail "auto: pack failed"
printf '%s\n' "$sum"
printf '%s\n' "$sum" | grep -qx "  runtime      needs SLUICE_CODEC_LZ4=ON and SLUICE_CODEC_MESHOPT=ON to read it (--target-runtime limits the codecs)" ||
    fail "auto: the summary does not name the build options"
inspect_json auto "$auto" '"meshopt": [1-9][0-9]*, "meshopt-lz4": [1-9]' '"SLUICE_CODEC_LZ4", "SLUICE_CODEC_MESHOPT"'
msg=$("$reader" "$auto" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "auto: the runtime without meshopt exited $rc, expected 1: $msg"
printf '%s\n' "$msg" | grep -q "is not built into this reader (SLUICE_CODEC_MESHOPT=OFF) (SLC_E_PACK_VERSION)" ||
    fail "auto: the refusal does not name the option: $msg"

lz4="$out/stored-lz4.pack"
sum=$("$sluice" pack --synthetic city --size 2M --target-runtime stored,lz4 -o "$lz4") || fail "stored,lz4: pack failed"
printf '%s\n' "$sum"
if printf '%s\n' "$sum" | grep -q "^  runtime "; then
    fail "stored,lz4: the summary asks for a runtime option"
fi
inspect_json stored,lz4 "$lz4" '"lz4": [1-9][0-9]*, "meshopt": 0, "meshopt-lz4": 0\}' '"SLUICE_CODEC_LZ4"'
msg=$("$reader" "$lz4" 2>&1) || fail "stored,lz4: the runtime without meshopt refused it: $msg"
printf '%s\n' "$msg" | grep -Eq "^pack_read: .*: [1-9][0-9]* chunks loaded$" || fail "stored,lz4: $msg"

stored="$out/stored.pack"
"$sluice" pack --synthetic city --size 2M --target-runtime stored --quiet -o "$stored" || fail "stored: pack failed"
info=$("$sluice" inspect "$stored") || fail "stored: inspect failed"
printf '%s\n' "$info" | grep -qx "codecs: stored; a runtime reads it with no codec option" ||
    fail "stored: $(printf '%s\n' "$info" | grep '^codecs')"

refused "sluice pack: --codec meshopt-lz4 is not in --target-runtime stored,lz4: that runtime cannot decode meshopt-lz4 chunks (they need SLUICE_CODEC_LZ4=ON and SLUICE_CODEC_MESHOPT=ON)" \
    --synthetic city --size 2M --target-runtime stored,lz4 --codec meshopt-lz4 -o "$out/never.pack"
refused "sluice pack: --target-runtime 'stored,zstd': 'zstd' is not a codec (a comma-separated list of stored, lz4, meshopt and meshopt-lz4)" \
    --synthetic city --size 2M --target-runtime stored,zstd -o "$out/never.pack"
[ ! -e "$out/never.pack" ] || fail "a refused command wrote a pack"
echo "pack_target_runtime: ok"
