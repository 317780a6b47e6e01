#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_atomic.sh CASE OUTDIR SLUICE...: `sluice pack` over an existing valid
# pack that does not complete leaves the old pack byte for byte as it was
# (compared with a copy and verified by `sluice inspect --verify`) and no
# temporary beside it.
#   enospc  the file size limit (ulimit -f, SIGXFSZ ignored, so a write fails
#           with EFBIG as on a full disk) stops the pack midway: exit 3 and a
#           message naming the pack and the reason
#   kill    SIGKILL once the temporary exists (the temporary may stay: a
#           killed process cannot clean up; the target is never touched)
#   term    SIGTERM once the temporary exists: the temporary is removed and
#           the process ends by the signal
#   int     the same with SIGINT
# The kill cases stop the packer (SIGSTOP) while its temporary is there, so
# the signal always lands mid-pack whatever the machine's speed.
set -u
case_=$1
out=$2
shift 2
dir="$out/pack_atomic_$case_"
rm -rf "$dir"
mkdir -p "$dir" || exit 1
pack="$dir/city.pack"
fail() { echo "pack_atomic $case_: $*" >&2; exit 1; }

"$@" pack --synthetic city --size 2MiB --seed 7 -o "$pack" >/dev/null || fail "cannot build the old pack"
cp "$pack" "$dir/copy.pack" || exit 1

temporaries() { find "$dir" -name '.city.pack.*' | wc -l | tr -d ' '; }

intact() {
    cmp "$pack" "$dir/copy.pack" || fail "the old pack changed"
    "$@" inspect "$pack" --verify >"$dir/verify.txt" 2>&1 || { cat "$dir/verify.txt"; fail "the old pack does not verify"; }
    grep -q '; 0 bad$' "$dir/verify.txt" || fail "the old pack has bad chunks"
}

case "$case_" in
enospc)
    msg=$( (trap '' XFSZ; ulimit -f 1024; exec "$@" pack --synthetic city --size 2MiB --seed 8 -o "$pack") 2>&1)
    rc=$?
    printf '%s\n' "$msg"
    [ "$rc" -eq 3 ] || fail "exit code $rc, expected 3"
    printf '%s\n' "$msg" | grep -Eq "city\.pack: write of [0-9]+ bytes at offset [0-9]+ failed: File too large" ||
        fail "the message does not name the pack and the reason"
    intact "$@"
    [ "$(temporaries)" -eq 0 ] || fail "a temporary was left behind"
    ;;
kill | term | int)
    sig=$(echo "$case_" | tr a-z A-Z)
    # A background job of a non-interactive shell starts with SIGINT
    # ignored: the packer gets the default back.
    default_int() {
        if env --default-signal=INT true 2>/dev/null; then
            exec env --default-signal=INT "$@"
        fi
        exec python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
    }
    (default_int "$@" pack --synthetic city --size 16MiB --seed 8 -o "$pack" >/dev/null 2>"$dir/err.txt") &
    pid=$!
    stopped=0
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$(temporaries)" -gt 0 ]; then
            kill -STOP "$pid"
            if [ "$(temporaries)" -gt 0 ]; then
                stopped=1
                break
            fi
            kill -CONT "$pid"
        fi
        sleep 0.02
    done
    [ "$stopped" -eq 1 ] || { wait "$pid"; fail "the packer ended before its temporary was seen"; }
    kill -"$sig" "$pid"
    kill -CONT "$pid"
    wait "$pid"
    rc=$?
    cat "$dir/err.txt"
    case "$sig" in
    KILL) want=137 ;;
    TERM) want=143 ;;
    INT) want=130 ;;
    esac
    [ "$rc" -eq "$want" ] || fail "exit status $rc, expected $want (killed by SIG$sig)"
    intact "$@"
    if [ "$sig" != KILL ]; then
        [ "$(temporaries)" -eq 0 ] || fail "the temporary was not removed on SIG$sig"
    fi
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "pack_atomic $case_: ok"
