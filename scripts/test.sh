#!/usr/bin/env bash
# Sets up (if needed) and runs every check: type-check/build, lint, all tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/pnpm.sh run test
