#!/usr/bin/env bash
# Installs everything loopguard needs on a fresh machine that has only Node >= 20 and npm.
# pnpm is fetched with npx (no global install, no corepack); better-sqlite3 compiles from source
# the first time (about 2.5 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

node -e 'const [major] = process.versions.node.split(".").map(Number); if (major < 20) { console.error(`loopguard needs Node >= 20, found ${process.version}`); process.exit(1); }'

PNPM_VERSION=10.34.8
export npm_config_yes=true
npx --yes "pnpm@${PNPM_VERSION}" install --frozen-lockfile
