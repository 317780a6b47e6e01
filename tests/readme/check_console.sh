#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_console.sh SLUICE SOURCE_DIR WORK_DIR FILE.md [SAMPLES_DIR]: runs
# every ```console block of FILE.md and compares what it prints with what
# the file shows. A block opened with ```console samples uses the glTF
# sample models (the Khronos glTF-Sample-Models layout): it runs only when
# SAMPLES_DIR is given, linked into WORK_DIR as samples/, and then only
# such blocks run (the samples' own test; the file's test checks the rest).
#
# In such a block a line "$ COMMAND" is a command, run with bash in WORK_DIR
# (emptied first; the source tree's budgets/, docs/ and tests/ linked into
# it, so a path the file names resolves) with `sluice` meaning the SLUICE binary; the
# lines after it, up to the next command or the end of the block, are what
# it prints (stdout and stderr): each must be a whole line of the output, in
# the order shown, except "..." lines, which stand for lines left out. A
# command must exit 0. So every figure the file quotes in such a block is
# produced again by each run of this test, and a figure that changes fails
# it, naming the file's line.
set -u
sluice_bin=$1 src=$2 work=$3 doc=$4 samples=${5:-}
rm -rf "$work" && mkdir -p "$work" || exit 1
ln -s "$src/budgets" "$work/budgets" && ln -s "$src/docs" "$work/docs" && ln -s "$src/tests" "$work/tests" || exit 1
opening='```console'
if [ -n "$samples" ]; then
    [ -d "$samples" ] || { echo "$doc: no samples folder $samples" >&2; exit 1; }
    ln -s "$samples" "$work/samples" || exit 1
    opening='```console samples'
fi
sluice() { "$sluice_bin" "$@"; }
export -f sluice
export sluice_bin

fail=0 blocks=0 commands=0
in_block=0 cmd= cmd_line=0
expected=() expected_at=()

# Runs the pending command and matches its expected lines in order.
check() {
    [ -n "$cmd" ] || return 0
    commands=$((commands + 1))
    local out rc
    out=$(cd "$work" && bash -c "$cmd" 2>&1)
    rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "$doc:$cmd_line: \$ $cmd: exit $rc" >&2
        printf '%s\n' "$out" >&2
        fail=1
    fi
    local i=0 line n=${#expected[@]}
    while IFS= read -r line; do
        [ "$i" -lt "$n" ] || break
        while [ "$i" -lt "$n" ] && [ "${expected[$i]}" = "..." ]; do
            i=$((i + 1))
        done
        if [ "$i" -lt "$n" ] && [ "$line" = "${expected[$i]}" ]; then
            i=$((i + 1))
        fi
    done <<<"$out"
    while [ "$i" -lt "$n" ] && [ "${expected[$i]}" = "..." ]; do
        i=$((i + 1))
    done
    if [ "$i" -lt "$n" ]; then
        echo "$doc:${expected_at[$i]}: \$ $cmd: this line is not in its output (in order):" >&2
        echo "  ${expected[$i]}" >&2
        echo "its output:" >&2
        printf '%s\n' "$out" | sed 's/^/  /' >&2
        fail=1
    fi
    cmd= expected=() expected_at=()
}

n=0
while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    if [ "$in_block" -eq 0 ]; then
        if [ "$line" = "$opening" ]; then
            in_block=1 blocks=$((blocks + 1))
        fi
        continue
    fi
    if [ "$line" = '```' ]; then
        check
        in_block=0
    elif [ "${line:0:2}" = '$ ' ]; then
        check
        cmd=${line:2} cmd_line=$n
    elif [ -n "$cmd" ]; then
        expected+=("$line")
        expected_at+=("$n")
    elif [ -n "$line" ]; then
        echo "$doc:$n: output before any command in a console block" >&2
        fail=1
    fi
done <"$doc"
if [ "$in_block" -ne 0 ]; then
    echo "$doc: a console block is not closed" >&2
    fail=1
fi
if [ "$commands" -eq 0 ]; then
    echo "$doc: no command in a console block" >&2
    fail=1
fi
echo "$doc: $blocks console blocks, $commands commands: $([ $fail -eq 0 ] && echo 'every line as shown' || echo 'FAILED')"
exit "$fail"
