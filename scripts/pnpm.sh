#!/usr/bin/env bash
# Runs the pinned pnpm without a global install: scripts/pnpm.sh <args>.
set -euo pipefail
cd "$(dirname "$0")/.."
exec npx --yes pnpm@10.34.8 "$@"
