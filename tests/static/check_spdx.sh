#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/spdx.sh on a scratch repository: --check names each source file
# without the licence line and fails; the fix adds the line (after a #!
# line where there is one) and leaves data and files that have it alone;
# --check then passes; an unknown argument is refused.
set -euo pipefail
script=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
git init -q .
mkdir scripts
cp "$script" scripts/spdx.sh
printf 'int a;\n' > a.c
printf '#!/bin/sh\necho b\n' > b.sh
printf '/* SPDX-License-Identifier: MIT */\nint c;\n' > c.c
printf 'name = d\n' > d.profile
git add -A
fail() { echo "check_spdx: $*" >&2; exit 1; }

if scripts/spdx.sh --check 2> err; then fail "--check passed with two files missing the line"; fi
grep -qx 'a.c: no "SPDX-License-Identifier: MIT" line in its first two lines' err || fail "a.c not named: $(cat err)"
grep -qx 'b.sh: no "SPDX-License-Identifier: MIT" line in its first two lines' err || fail "b.sh not named: $(cat err)"
grep -qE '^(c\.c|d\.profile|scripts/spdx\.sh):' err && fail "a file with the line, or data, named: $(cat err)"
grep -qx 'spdx: 2 source files without the licence line; scripts/spdx.sh adds it' err || fail "count: $(cat err)"

scripts/spdx.sh
[ "$(head -n 1 a.c)" = "/* SPDX-License-Identifier: MIT */" ] || fail "a.c: $(head -n 1 a.c)"
[ "$(sed -n 2p a.c)" = "int a;" ] || fail "a.c lost its first line"
[ "$(head -n 1 b.sh)" = "#!/bin/sh" ] || fail "b.sh: the #! line moved"
[ "$(sed -n 2p b.sh)" = "# SPDX-License-Identifier: MIT" ] || fail "b.sh: $(sed -n 2p b.sh)"
[ "$(grep -c SPDX c.c)" = 1 ] || fail "c.c got a second line"
[ "$(cat d.profile)" = "name = d" ] || fail "d.profile changed"
scripts/spdx.sh --check || fail "--check failed after the fix"

if scripts/spdx.sh --fix 2> err; then fail "--fix accepted"; fi
grep -qx 'usage: scripts/spdx.sh \[--check\]' err || fail "usage: $(cat err)"
echo "check_spdx: ok"
