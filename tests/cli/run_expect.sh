#!/bin/sh
# SPDX-License-Identifier: MIT
# run_expect.sh CODE REGEX COMMAND...: runs COMMAND, fails unless it exits
# with CODE and its stdout+stderr match the extended regular expression REGEX.
want=$1
pattern=$2
shift 2
out=$("$@" 2>&1)
got=$?
printf '%s\n' "$out"
if [ "$got" -ne "$want" ]; then
    echo "run_expect: exit code $got, expected $want" >&2
    exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
    echo "run_expect: output does not match: $pattern" >&2
    exit 1
fi
