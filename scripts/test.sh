#!/usr/bin/env bash
# Sets up (if needed) and runs every check: type-check/build, lint, all tests.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/stage.sh
source scripts/lib/stage.sh
bash scripts/setup.sh
stages_done
bash scripts/pnpm.sh run test
