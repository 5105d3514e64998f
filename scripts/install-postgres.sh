#!/usr/bin/env bash
# Installs Debian's PostgreSQL server binaries when initdb is missing (the @loopguard/postgres tests
# start a throwaway cluster with initdb + pg_ctl). Idempotent: does nothing when PostgreSQL is there.
set -euo pipefail
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-postgres: initdb is missing and this is not root; run: sudo apt-get install -y postgresql" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq postgresql >/dev/null
# Debian's package starts a cluster of its own; the tests do not use it.
(command -v pg_ctlcluster >/dev/null && pg_lsclusters -h 2>/dev/null | while read -r version name _; do
  pg_ctlcluster "$version" "$name" stop || true
done) || true
