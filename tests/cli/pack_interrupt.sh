#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_interrupt.sh CASE WORKDIR SLUICE...: SIGINT or SIGTERM to `sluice pack
# --jobs 2` (worker threads running) or to `sluice merge`, sent once the
# output's temporary (".NAME.XXXXXX" beside it) exists, leaves no output, no
# temporary, an existing output byte for byte as it was, and the process
# ended by the signal (the shell's status 130 for SIGINT, 143 for SIGTERM).
#   pack-int, pack-term    a 16 MiB city, over an existing pack (int) or
#                          where there is none (term)
#   merge-int, merge-term  the merge of two parts of that city, over an
#                          existing pack (int) or where there is none (term)
# The process is stopped (SIGSTOP) as soon as the temporary is seen, then
# signalled and continued, so the signal lands mid-write whatever the
# machine's speed. A merge takes a fraction of a second: it is tried up to
# 20 times, and the case is skipped (77) if its temporary is never seen.
set -u
case=$1
dir=$2/pack-interrupt-$1
shift 2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fail() {
    echo "pack_interrupt $case: $*" >&2
    exit 1
}
sl="$*" # SLUICE... as words (the build's paths have no spaces)
city() { # OUT [options]
    out=$1
    shift
    # shellcheck disable=SC2086
    $sl pack --synthetic city --size 16MiB --seed 8 --bundle-size 2M --quiet -o "$out" "$@"
}

target=$dir/out.pack
temporaries() { find "$dir" -name '.out.pack.*' | wc -l | tr -d ' '; }

# A background job of a non-interactive shell starts with SIGINT ignored:
# the command gets the default back.
default_int() {
    if env --default-signal=INT true 2>/dev/null; then
        exec env --default-signal=INT "$@"
    fi
    exec python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# Runs "$@" in the background and signals it once its temporary is there.
# Returns 0 with $rc set, or 1 when the command ended before that.
interrupt() { # SIG CMD...
    sig=$1
    shift
    (default_int "$@" >"$dir/out.txt" 2>"$dir/err.txt") &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$(temporaries)" -gt 0 ]; then
            kill -STOP "$pid" 2>/dev/null
            if [ "$(temporaries)" -gt 0 ]; then
                kill -"$sig" "$pid"
                kill -CONT "$pid"
                wait "$pid"
                rc=$?
                return 0
            fi
            kill -CONT "$pid" 2>/dev/null
        fi
        sleep 0.005
    done
    wait "$pid"
    return 1
}

kind=${case%-*}
sig=$(echo "${case#*-}" | tr a-z A-Z)
case $sig in
INT) want=130 ;;
TERM) want=143 ;;
*) fail "unknown case" ;;
esac
if [ "$sig" = INT ]; then
    city "$target" --size 1MiB || fail "cannot build the old pack"
    cp "$target" "$dir/old.pack" || exit 1
fi
case $kind in
pack)
    interrupt "$sig" "$@" pack --synthetic city --size 16MiB --seed 8 --bundle-size 2M --jobs 2 -o "$target" ||
        fail "the pack ended before its temporary was seen"
    ;;
merge)
    for k in 1 2; do
        city "$dir/p$k.part" --part "$k/2" --jobs 2 || fail "cannot build part $k"
    done
    tries=0
    until interrupt "$sig" "$@" merge "$dir/p1.part" "$dir/p2.part" -o "$target"; do
        tries=$((tries + 1))
        [ "$tries" -lt 20 ] || { echo "pack_interrupt $case: the merge was never caught mid-write; skipped"; exit 77; }
        if [ "$sig" = INT ]; then
            cp "$dir/old.pack" "$target"
        else
            rm -f "$target"
        fi
    done
    ;;
*)
    fail "unknown case"
    ;;
esac
cat "$dir/err.txt"
[ "$rc" -eq "$want" ] || fail "exit status $rc, expected $want (ended by SIG$sig)"
[ "$(temporaries)" -eq 0 ] || fail "a temporary was left: $(find "$dir" -name '.out.pack.*')"
if [ "$sig" = INT ]; then
    cmp "$target" "$dir/old.pack" || fail "the existing pack changed"
else
    [ ! -e "$target" ] || fail "an output was left"
fi
[ ! -s "$dir/out.txt" ] || fail "a summary was printed: $(cat "$dir/out.txt")"
echo "pack_interrupt $case: ok"
