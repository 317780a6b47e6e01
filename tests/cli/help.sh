#!/bin/sh
# SPDX-License-Identifier: MIT
# help.sh "WORDS" SLUICE...: `sluice WORDS --help` and `sluice WORDS -h` print
# that subcommand's usage ("usage: sluice WORDS") on stdout, nothing on
# stderr, and exit 0.
set -u
words=$1
shift
for flag in --help -h; do
    # shellcheck disable=SC2086 # WORDS are the subcommand's words
    out=$("$@" $words $flag 2>/tmp/help.$$.err)
    rc=$?
    err=$(cat /tmp/help.$$.err)
    rm -f /tmp/help.$$.err
    printf '%s\n' "$out"
    [ "$rc" -eq 0 ] || { echo "help: 'sluice $words $flag' exits $rc, expected 0" >&2; exit 1; }
    [ -z "$err" ] || { echo "help: 'sluice $words $flag' wrote to stderr: $err" >&2; exit 1; }
    printf '%s\n' "$out" | head -1 | grep -q "^usage: sluice $words" ||
        { echo "help: 'sluice $words $flag' does not start with 'usage: sluice $words'" >&2; exit 1; }
done
echo "help: sluice $words: ok"
