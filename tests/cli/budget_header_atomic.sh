#!/bin/sh
# SPDX-License-Identifier: MIT
# budget_header_atomic.sh OUTDIR PROFILE SLUICE...: `sluice budget header -o`
# never destroys what it would replace.
#   - a write that fails midway (the file size limit, SIGXFSZ ignored, so the
#     write fails with EFBIG as on a full disk): exit 3, a message naming the
#     file and the reason, the old header byte for byte, no temporary left
#   - -o naming the profile itself: refused (exit 2) before anything is
#     written, naming both, the profile unchanged
set -u
out=$1
profile=$2
shift 2
dir="$out/budget_header_atomic"
rm -rf "$dir"
mkdir -p "$dir" || exit 1
fail() { echo "budget_header_atomic: $*" >&2; exit 1; }

h="$dir/profile.h"
"$@" budget header "$profile" -o "$h" || fail "cannot write the first header"
cp "$h" "$dir/copy.h" || exit 1
[ "$(wc -c <"$h")" -gt 1024 ] || fail "the header is too small for the test's file size limit"

msg=$( (trap '' XFSZ; ulimit -f 1; exec "$@" budget header "$profile" --name other -o "$h") 2>&1)
rc=$?
printf '%s\n' "$msg"
[ "$rc" -eq 3 ] || fail "exit code $rc, expected 3"
printf '%s\n' "$msg" | grep -q "profile\.h: cannot write: File too large" || fail "the message does not name the file and the reason"
cmp "$h" "$dir/copy.h" || fail "the old header changed"
[ "$(find "$dir" -name '.profile.h.*' | wc -l)" -eq 0 ] || fail "a temporary was left behind"

cp "$profile" "$dir/p.profile" || exit 1
msg=$("$@" budget header "$dir/p.profile" -o "$dir/p.profile" 2>&1)
rc=$?
printf '%s\n' "$msg"
[ "$rc" -eq 2 ] || fail "exit code $rc for -o naming the profile, expected 2"
printf '%s\n' "$msg" | grep -q "the output .*p.profile is the profile .*p.profile itself" || fail "the refusal does not name both"
cmp "$profile" "$dir/p.profile" || fail "the profile was replaced"
echo "budget_header_atomic: ok"
