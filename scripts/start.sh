#!/usr/bin/env bash
# `npm start`: install what is missing, then run the planner on the embedded default (`planner dev`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
exec node bin/planner.js dev "$@"
