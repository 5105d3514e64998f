#!/usr/bin/env bash
# Sets up (if needed) and runs `loopguard demo`: a scripted autopilot into every loop type and a guard trip.
# Extra arguments go to the command, e.g. `bash scripts/demo.sh --serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/stage.sh
source scripts/lib/stage.sh
bash scripts/setup.sh
stage "building (tsc -b and the hook bundle)" bash scripts/pnpm.sh run build
stages_done
node packages/cli/dist/bin.js demo "$@"
