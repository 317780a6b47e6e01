#!/bin/sh
# SPDX-License-Identifier: MIT
# json_names.sh OUTDIR PACK PROFILE SLUICE...: machine-readable output is
# valid JSON whatever the names in it. A copy of PACK named with '"', '\',
# '<', '&', a control character and a byte that is not UTF-8: `inspect
# --json` parses with python3's json module and its "file" is the name, the
# invalid byte as U+FFFD. `budget check --json` parses too.
set -u
out=$1
pack=$2
profile=$3
shift 3
dir="$out/json_names"
rm -rf "$dir"
mkdir -p "$dir" || exit 1
fail() { echo "json_names: $*" >&2; exit 1; }

name=$(printf 'a"b\\c<d&e\001f\377g.pack')
cp "$pack" "$dir/$name" || fail "cannot copy the pack"
"$@" inspect "$dir/$name" --json --verify >"$dir/inspect.json" || fail "inspect --json failed"
python3 - "$dir/inspect.json" "$dir/$name" <<'PY' || fail "inspect --json is not valid JSON naming the file"
import json, os, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
want = os.fsencode(sys.argv[2]).decode("utf-8", errors="replace")
if doc["file"] != want:
    sys.exit("file is %r, expected %r" % (doc["file"], want))
if doc["bad_chunks"] != 0:
    sys.exit("bad chunks")
PY
"$@" budget check --json "$profile" >"$dir/budget.json" || fail "budget check --json failed"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["budgets"][0]["parent"] is None, d' \
    "$dir/budget.json" || fail "budget check --json is not valid JSON"
echo "json_names: ok"
