#!/usr/bin/env bash
# The main job: installs what is missing, builds sluice, and prints the memory
# report of budgets/default: every budget and its limit, and the size of the
# single block a firmware image must provide.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
cmake --preset default >/dev/null
cmake --build --preset default >/dev/null
build/default/tools/sluice budget check budgets/default.profile
