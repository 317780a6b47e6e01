#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Static analysis of sluice, every part of which fails the step:
#   layout       scripts/format.sh --check (.clang-format)
#   licence      scripts/spdx.sh --check (an SPDX line in every source file)
#   structure    the ctest tests labelled static of the default build:
#                check_layers (no include of a higher layer: runtime <
#                platform < tools < tests), check_cycles (no include or call
#                loop), check_heap_symbols, check_typed_ids, and the canaries
#                that prove each check finds what it looks for
#   clang-tidy   (.clang-tidy) and cppcheck (tests/static/cppcheck.supp) over
#                runtime/, platform/ and tools/, with the compile commands of
#                the default preset (build/default/compile_commands.json)
# Run by scripts/test.sh after the default step; by hand: scripts/static.sh
#
# The same tree gives the same answer on every run, whatever state build/
# is in: the default preset is configured and built first (a no-op after
# the default step), so every header the build generates (the shaders'
# .inc arrays) exists when clang-tidy reads the files that include them;
# build/static is emptied, so cppcheck starts without the results of an
# earlier run in its build folder; each file's clang-tidy output goes to
# its own log and the logs are joined in path order, so parallel runs
# cannot interleave one finding with another's lines; and clang-tidy runs
# with address randomisation off (see below), so its analyzer explores the
# same paths every run.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
jobs=$(nproc)

status=0

start=$(date +%s)
if ! scripts/format.sh --check; then
    echo "static: the files above differ from .clang-format; scripts/format.sh rewrites them" >&2
    status=1
fi
echo "static: format: $(( $(date +%s) - start )) s"
if ! scripts/spdx.sh --check; then
    status=1
fi

cmake --preset default >/dev/null
cmake --build --preset default
start=$(date +%s)
if ! ctest --preset default -L static --output-on-failure; then
    echo "static: the structure checks above failed (tests/static/)" >&2
    status=1
fi
echo "static: structure: $(( $(date +%s) - start )) s"

out=build/static
rm -rf "$out"
mkdir -p "$out/tidy"
# One entry per file, the product build's (the tests compile the runtime a
# second time with the test configuration).
cmake -DIN=build/default/compile_commands.json -DOUT="$out/compile_commands.json" -DLIST="$out/files.txt" \
      -DSOURCE_DIR="$src" -P tests/static/compile_db.cmake >/dev/null
mapfile -t files < <(sort "$out/files.txt")
[[ ${#files[@]} -gt 0 ]] || { echo "static: no files in $out/compile_commands.json" >&2; exit 1; }


# clang-tidy, one process per file, $jobs at a time, the largest first so
# that a long one does not end up running alone at the end (the order only
# schedules: each file's output has its own log). -UNDEBUG: the build is
# RelWithDebInfo (-DNDEBUG), but SLC_ASSERT (assert) is each function's
# contract, and the analyzer should know it rather than explore the paths a
# contract excludes.
#
# Without address randomisation: the analyzer's path exploration depends on
# the addresses of its own objects, so on a function whose inlined paths
# exceed its budget the findings change from process to process. At
# fe614db, `clang-tidy tools/pack_cmd.c` with the same compile command
# reported clang-analyzer-core.NullDereference at line 281 in 2 runs of 35
# and nothing in the others (15 runs: 2 different outputs); with the
# addresses fixed (setarch -R, where the kernel allows it) the same 15 runs
# gave one output, and the same tree in the same folder gives the same
# answer every run.
norand=""
if setarch "$(uname -m)" -R true 2>/dev/null; then
    norand="setarch $(uname -m) -R"
else
    echo "static: setarch -R is refused here; clang-tidy runs with randomised addresses" >&2
fi
start=$(date +%s)
tr '\n' '\0' <"$out/files.txt" | xargs -0 ls -S | tr '\n' '\0' |
    NORAND="$norand" xargs -0 -n 1 -P "$jobs" sh -c '
        log="$0/tidy/$(printf %s "$1" | tr / _).log"
        $NORAND clang-tidy -p "$0" --quiet --extra-arg=-UNDEBUG "$1" >"$log" 2>&1 || echo "$1" >>"$0/tidy-failed"' "$out"
tidy=0
[[ -s "$out/tidy-failed" ]] && tidy=1
for f in "${files[@]}"; do
    cat "$out/tidy/$(printf %s "$f" | tr / _).log"
done >"$out/clang-tidy.log"
# clang-tidy prints "N warnings generated" for what it filtered out; the
# findings are the lines with a check name in brackets.
if grep -E '(warning|error): .*\[[A-Za-z0-9.,_-]+\]$' "$out/clang-tidy.log" >/dev/null; then
    tidy=1
fi
if [[ $tidy -ne 0 ]]; then
    status=1
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
