#!/bin/sh
# SPDX-License-Identifier: MIT
# machine_memory.sh CASE OUTDIR PACK SLUICE...: memory this machine cannot give
# is refused before it is mapped, naming the profile, the size and what is
# available, never populated until the kernel refuses and never blamed on a
# budget it fits.
# physical:
#   - a 1008 GiB host page pool: `budget check` notes it and exits 0 (a
#     profile for a larger device is still checked), with --this-machine it
#     fails (1); `run --backend host` fails (1) naming physical memory
#   - a 1 TiB memory block: `budget check` and `run` fail (1)
# rlimit:
#   - a 560 MiB block under `ulimit -v` of 390 MiB: both fail (1) naming
#     RLIMIT_AS; a 64 MiB block and a 512 MiB host pool: run maps the block,
#     then fails (1) naming the pool and RLIMIT_AS
#   (skipped, 77, where the tool cannot start under that limit: sanitizers
#   and emulators reserve more address space than that)
set -u
case_=$1
out=$2
pack=$3
shift 3
dir="$out/machine_memory_$case_"
rm -rf "$dir"
mkdir -p "$dir" || exit 1
fail() { echo "machine_memory: $*" >&2; exit 1; }
run_expect=$(cd "$(dirname "$0")" && pwd)/run_expect.sh

# profile NAME CPU META POOL PAGE_SIZE PAGE_COUNT
profile() {
    cat >"$dir/$1.profile" <<EOP
[profile]
name = $1

[budgets]
cpu             = $2
cpu/meta        = $3
cpu/decode      = 8 MiB
cpu/queues      = 8 MiB
cpu/driver      = 32 MiB
gpu             = 1 TiB
gpu/pool        = $4
gpu/staging     = 32 MiB

[pool]
page_size       = $5
page_count      = $6

[stream]
frames_in_flight = 2
workers          = 1
queue_capacity   = 1024
staging_size     = 32 MiB
upload_per_frame = 16 MiB
pin_coarsest     = 1

[tables]
max_objects      = 16384
max_chunks       = 65536
max_lods         = 8
max_string_bytes = 1 MiB

[report]
max_phases       = 8
EOP
}

# expect CODE REGEX COMMAND...: exit code and a line of stdout+stderr
expect() {
    got_out=$("$run_expect" "$@" 2>&1)
    got=$?
    printf '%s\n' "$got_out"
    [ "$got" -eq 0 ] || fail "$*"
    if printf '%s\n' "$got_out" | grep -q "does not fit the gpu/pool budget"; then
        fail "blames the gpu/pool budget, which the pool fits: $*"
    fi
}

if [ "$case_" = physical ]; then
profile huge-pool "64 MiB" "8 MiB" "1008 GiB" "1 MiB" 1032192
pool_re="profile 'huge-pool': memory block of [0-9.]+ MiB and host page pool of 1008(\.0)? GiB \(gpu/pool: 1032192 pages of 1 MiB\), [0-9.]+ GiB together, exceed this machine's physical memory of [0-9.]+ [GT]iB"
expect 0 "budget check: note: $pool_re" "$@" budget check "$dir/huge-pool.profile"
expect 1 "budget check: $pool_re$" "$@" budget check "$dir/huge-pool.profile" --this-machine
# (a 32-bit size_t cannot address the pool: the host store's own refusal then)
expect 1 "sluice run: $pool_re$|sluice run: profile 'huge-pool': 1032192 pages of 1048576 bytes do not fit this machine" "$@" run "$pack" --profile "$dir/huge-pool.profile" --backend host --frames 2

profile huge-block "1 TiB" "1000 GiB" "16 MiB" "64 KiB" 256
# (a 32-bit size_t cannot even express it: the older refusal then)
block_re="profile 'huge-block': memory block of 1.0 TiB \(the cpu budgets' arenas\) exceeds this machine's physical memory of [0-9.]+ [GT]iB|the profile needs more memory than this machine can address"
expect 1 "$block_re" "$@" budget check "$dir/huge-block.profile"
expect 1 "$block_re" "$@" run "$pack" --profile "$dir/huge-block.profile" --backend host --frames 2

echo "machine_memory physical: ok"
exit 0
fi

profile big-block "560 MiB" "512 MiB" "16 MiB" "64 KiB" 256
if ! (ulimit -v 400000 && "$@" version >/dev/null 2>&1); then
    echo "machine_memory: skipped: the tool does not start under ulimit -v 400000"
    exit 77
fi
as_re="profile 'big-block': memory block of 560.[0-9] MiB \(the cpu budgets' arenas\) exceeds the [0-9.]+ [KM]iB that the address-space limit \(RLIMIT_AS, ulimit -v\) of 390.6 MiB leaves this process \([0-9.]+ [KM]iB in use\)"
expect 1 "budget check: $as_re" sh -c 'ulimit -v 400000 && exec "$@"' sh "$@" budget check "$dir/big-block.profile"
expect 1 "sluice run: $as_re" sh -c 'ulimit -v 400000 && exec "$@"' sh "$@" run "$pack" --profile "$dir/big-block.profile" \
    --backend host --frames 2
# The block fits and is mapped; the host pool is then checked alone against what is left.
profile big-pool "64 MiB" "8 MiB" "512 MiB" "64 KiB" 8192
pool_as_re="profile 'big-pool': host page pool of 512.[0-9] MiB \(gpu/pool: 8192 pages of 64 KiB\) exceeds the [0-9.]+ MiB that the address-space limit \(RLIMIT_AS, ulimit -v\) of 390.6 MiB leaves this process"
expect 1 "sluice run: $pool_as_re" sh -c 'ulimit -v 400000 && exec "$@"' sh "$@" run "$pack" --profile "$dir/big-pool.profile" \
    --backend host --frames 2
echo "machine_memory rlimit: ok"
