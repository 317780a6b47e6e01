#!/usr/bin/env bash
# Static analysis of sluice: clang-tidy (.clang-tidy) and cppcheck
# (tests/static/cppcheck.supp) over runtime/, platform/ and tools/, with the
# compile commands of the default preset (build/default/compile_commands.json,
# CMAKE_EXPORT_COMPILE_COMMANDS). Any finding of either tool fails.
# Run by scripts/test.sh after the default preset; by hand:
#   scripts/static.sh            (configures build/default if needed)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
jobs=$(nproc)

if [[ ! -f build/default/compile_commands.json ]]; then
    cmake --preset default >/dev/null
fi
out=build/static
mkdir -p "$out"
# One entry per file, the product build's (the tests compile the runtime a
# second time with the test configuration).
cmake -DIN=build/default/compile_commands.json -DOUT="$out/compile_commands.json" -DLIST="$out/files.txt" \
      -DSOURCE_DIR="$src" -P tests/static/compile_db.cmake >/dev/null
# Largest first, so that the long ones do not end up running alone at the end.
mapfile -t files < <(tr '\n' '\0' <"$out/files.txt" | xargs -0 ls -S)
[[ ${#files[@]} -gt 0 ]] || { echo "static: no files in $out/compile_commands.json" >&2; exit 1; }

status=0

# clang-tidy, one process per file, $jobs at a time. -UNDEBUG: the build is
# RelWithDebInfo (-DNDEBUG), but SLC_ASSERT (assert) is each function's
# contract, and the analyzer should know it rather than explore the paths a
# contract excludes.
start=$(date +%s)
if ! printf '%s\0' "${files[@]}" |
        xargs -0 -n 1 -P "$jobs" clang-tidy -p "$out" --quiet --extra-arg=-UNDEBUG >"$out/clang-tidy.log" 2>&1; then
    status=1
fi
# clang-tidy prints "N warnings generated" for what it filtered out; the
# findings are the lines with a check name in brackets.
if grep -E '(warning|error): .*\[[A-Za-z0-9.,_-]+\]$' "$out/clang-tidy.log" >/dev/null; then
    status=1
fi
if [[ $status -ne 0 ]]; then
    grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|^Error while processing' \
        "$out/clang-tidy.log" >&2 || true
    echo "static: clang-tidy found the problems above (config: .clang-tidy)" >&2
fi
echo "static: clang-tidy, ${#files[@]} files: $(( $(date +%s) - start )) s"

# cppcheck. --enable=warning,performance,portability: bugs and undefined
# behaviour, not style. --library=posix for the platform's calls. The
# suppressions file gives the reason of each.
start=$(date +%s)
if ! cppcheck --project="$out/compile_commands.json" --enable=warning,performance,portability \
        --library=posix --inline-suppr --suppressions-list=tests/static/cppcheck.supp \
        --error-exitcode=1 -j "$jobs" --quiet --cppcheck-build-dir="$out" \
        --template='{file}:{line}:{column}: {severity}: {message} [{id}]' 2>"$out/cppcheck.log"; then
    cat "$out/cppcheck.log" >&2
    echo "static: cppcheck found the problems above (suppressions: tests/static/cppcheck.supp)" >&2
    status=1
fi
echo "static: cppcheck, ${#files[@]} files: $(( $(date +%s) - start )) s"
exit $status
