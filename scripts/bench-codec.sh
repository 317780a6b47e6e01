#!/bin/sh
# SPDX-License-Identifier: MIT
# bench-codec.sh [SLUICE] [OPTIONS...]: `sluice bench codec` over every model
# of the samples folder's MANIFEST.tsv (GLTF_DIR, ../shared/gltf beside the
# repository by default): per model, pack bytes at LOD 0 per chunk codec
# against gltfpack -cc followed by lz4 -9, and each codec's decode GB/s on one
# core against memcpy. Models the packer refuses are listed as skipped, with
# the reason. OPTIONS go to the command (--json, --reps N, --gltfpack PROG).
# The anchor needs gltfpack and lz4 on PATH (scripts/deps.sh installs both);
# without them its columns say why. Measure with a Release build
# (build/release/tools/sluice by default); takes a few seconds.
#
#   scripts/bench-codec.sh build/release/tools/sluice --json > codec.json
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
sluice=${1:-$root/build/release/tools/sluice}
[ "$#" -gt 0 ] && shift
gltf_dir=${GLTF_DIR:-$root/../shared/gltf}
manifest=$gltf_dir/MANIFEST.tsv
[ -r "$manifest" ] || { echo "bench-codec: no $manifest (set GLTF_DIR)" >&2; exit 3; }
[ -x "$sluice" ] || { echo "bench-codec: $sluice is not an executable (give the sluice binary)" >&2; exit 3; }
# The main_file column (3rd) of every row after the header, appended to the
# options as the command's models (options and models may mix).
tab=$(printf '\t')
rows=$(tail -n +2 "$manifest")
while IFS="$tab" read -r _name _kind main _rest; do
    [ -n "$main" ] && set -- "$@" "$gltf_dir/$main"
done <<ROWS
$rows
ROWS
exec "$sluice" bench codec "$@"
