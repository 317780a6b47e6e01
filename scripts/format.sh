#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Formats sluice's C with clang-format (.clang-format at the root):
#   scripts/format.sh            rewrites every tracked .c and .h file of
#                                runtime/, platform/, tools/, tests/ and
#                                firmware/ in place
#   scripts/format.sh --check    changes nothing; lists the files whose layout
#                                differs and exits 1 if there is one
# Run by the static step (scripts/static.sh) with --check.
#
# The files left out (their layout is a table or a document on purpose,
# and clang-format would scatter it), each with its reason:
#   runtime/include/sluice/status.h   SLC_STATUS_LIST: one X(code, text) row
#                                     a status, the continuations aligned as
#                                     one column
#   tests/unit/test_usda.c            USD text as C string literals, one
#   tests/unit/test_usd_stage.c       line of the document a line, spliced
#                                     with macros (TRI(n)) mid-document
# Everything else (fuzz corpora, shaders, data) is not C and never listed.
# A block of another file can opt out with // clang-format off / on.
set -euo pipefail
cd "$(dirname "$0")/.."

excluded=(
    runtime/include/sluice/status.h
    tests/unit/test_usda.c
    tests/unit/test_usd_stage.c
)

check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
*) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac

command -v clang-format >/dev/null || { echo "format: clang-format not found (scripts/deps.sh installs it)" >&2; exit 2; }

mapfile -t files < <(git ls-files -- 'runtime/*.[ch]' 'platform/*.[ch]' 'tools/*.[ch]' 'tests/*.[ch]' 'firmware/*.[ch]' |
                     grep -v -x -F -f <(printf '%s\n' "${excluded[@]}"))
[[ ${#files[@]} -gt 0 ]] || { echo "format: no files (not a git checkout?)" >&2; exit 2; }

if [[ $check -eq 0 ]]; then
    clang-format -i --style=file "${files[@]}"
    exit 0
fi
differ=0
for f in "${files[@]}"; do
    if ! clang-format --style=file "$f" | cmp -s - "$f"; then
        echo "$f"
        differ=$((differ + 1))
    fi
done
if [[ $differ -ne 0 ]]; then
    echo "format: $differ of ${#files[@]} files differ from .clang-format (run scripts/format.sh)" >&2
    exit 1
fi
echo "format: ${#files[@]} files follow .clang-format"
