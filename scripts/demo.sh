#!/usr/bin/env bash
# Sets up (if needed) and runs the demo: a scripted autopilot that loops in each of the three ways.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/pnpm.sh run demo
