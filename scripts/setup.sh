#!/usr/bin/env bash
# Installs everything loopguard needs on a fresh machine that has only Node >= 20 and npm.
# pnpm is fetched with npx (no global install, no corepack); better-sqlite3 compiles from source
# the first time (about 2 minutes). One progress line per stage; the output of the tools goes to a
# log file, whose path is printed (with its last lines) when a stage fails.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/stage.sh
source scripts/lib/stage.sh

node -e 'const [major] = process.versions.node.split(".").map(Number); if (major < 20) { console.error(`loopguard needs Node >= 20, found ${process.version}`); process.exit(1); }'

# shellcheck source=lib/nodeHeaders.sh
source scripts/lib/nodeHeaders.sh

PNPM_VERSION=10.34.8
export npm_config_yes=true
stage "installing dependencies (pnpm ${PNPM_VERSION}; the first run compiles better-sqlite3, ~2 min)" \
  npx --yes "pnpm@${PNPM_VERSION}" install --frozen-lockfile --reporter=append-only
stages_done
