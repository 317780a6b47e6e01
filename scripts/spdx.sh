#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every source file of sluice names its licence (LICENSE, MIT) in an SPDX
# line at its top, so a build system's licence scan (Yocto's, for one)
# finds it without reading prose:
#   scripts/spdx.sh            adds the line where it is missing: the first
#                              line, or the second after a #! line
#   scripts/spdx.sh --check    changes nothing; lists every source file
#                              without it and exits 1 if there is one
# Run by the static step (scripts/static.sh) with --check.
#
# Source files are the tracked C, C++, GLSL, CMake and shell files and the
# configured templates; data (profiles, traces, sample scenes, packs),
# documents and tool settings are not. The line must be within the first
# two lines, exactly "SPDX-License-Identifier: MIT" after the comment mark.
set -euo pipefail
cd "$(dirname "$0")/.."
id="SPDX-License-Identifier: MIT"
check=0
if [ "${1:-}" = "--check" ]; then
    check=1
elif [ $# -gt 0 ]; then
    echo "usage: scripts/spdx.sh [--check]" >&2
    exit 2
fi
missing=0
while IFS= read -r f; do
    case "$f" in
    *.c | *.h | *.cpp | *.glsl | *.vert | *.frag | *.comp) line="/* $id */" ;;
    CMakeLists.txt | */CMakeLists.txt | *.cmake | *.in | *.sh | .ci/run) line="# $id" ;;
    *) continue ;;
    esac
    if head -n 2 -- "$f" | grep -qF -- "$id"; then
        continue
    fi
    if [ "$check" = 1 ]; then
        echo "$f: no \"$id\" line in its first two lines" >&2
        missing=$((missing + 1))
        continue
    fi
    tmp=$(mktemp "$f.XXXXXX")
    if head -n 1 -- "$f" | grep -q '^#!'; then
        { head -n 1 -- "$f"; echo "$line"; tail -n +2 -- "$f"; } > "$tmp"
    else
        { echo "$line"; cat -- "$f"; } > "$tmp"
    fi
    chmod --reference="$f" "$tmp"
    mv -- "$tmp" "$f"
done < <(git ls-files)
if [ "$missing" -gt 0 ]; then
    echo "spdx: $missing source files without the licence line; scripts/spdx.sh adds it" >&2
    exit 1
fi
