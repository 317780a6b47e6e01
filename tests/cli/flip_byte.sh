#!/bin/sh
# SPDX-License-Identifier: MIT
# flip_byte.sh IN OUT OFFSET: copies IN to OUT with the byte at OFFSET inverted.
set -e
cp "$1" "$2"
old=$(od -An -tu1 -j "$3" -N1 "$1" | tr -d ' ')
new=$((255 - old))
printf "$(printf '\\%03o' "$new")" | dd of="$2" bs=1 seek="$3" conv=notrunc status=none
