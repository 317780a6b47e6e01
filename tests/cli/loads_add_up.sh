#!/bin/sh
# SPDX-License-Identifier: MIT
# loads_add_up.sh NAME < REPORT: the report's chunks line adds up: the loads
# run are the ones by workers and on the caller, and they are the loads
# applied, failed, cancelled and not yet applied at the end. Prints the
# parts; exits 1 naming the line when they do not add up.
set -u
line=$(grep '^chunks: ')
parts=$(printf '%s\n' "$line" | sed -n 's/^chunks: [0-9]* hits, [0-9]* misses, \([0-9]*\) loads applied, \([0-9]*\) failed, \([0-9]*\) cancelled, \([0-9]*\) run but not yet applied at the end (\([0-9]*\) run: \([0-9]*\) by workers, \([0-9]*\) on the caller), .*/\1 \2 \3 \4 \5 \6 \7/p')
[ -n "$parts" ] || { echo "$1: no loads breakdown in '$line'" >&2; exit 1; }
set -- "$1" $parts
[ $(($2 + $3 + $4 + $5)) -eq "$6" ] || { echo "$1: applied, failed, cancelled and unapplied do not make the $6 run: '$line'" >&2; exit 1; }
[ $(($7 + $8)) -eq "$6" ] || { echo "$1: by workers and on the caller do not make the $6 run: '$line'" >&2; exit 1; }
echo "$1: loads add up: $2 applied + $3 failed + $4 cancelled + $5 unapplied = $6 run = $7 by workers + $8 on the caller"
