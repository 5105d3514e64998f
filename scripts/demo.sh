#!/usr/bin/env bash
# Sets up (if needed) and runs `loopguard demo`: a scripted autopilot into every loop type and a guard trip.
# Extra arguments go to the command, e.g. `bash scripts/demo.sh --serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/pnpm.sh exec tsc -b
node packages/cli/dist/bin.js demo "$@"
