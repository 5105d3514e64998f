#!/usr/bin/env bash
# better-sqlite3 compiles against Node's headers; use the local ones when npm is not already told
# where they are (node-gyp would otherwise try to download them, which fails on a machine without
# that network). Source it before an npm or pnpm install.
if [ -z "${npm_config_nodedir:-}" ] && [ "$(npm config get nodedir 2>/dev/null)" = "undefined" ]; then
  node_prefix=$(dirname "$(dirname "$(command -v node)")")
  if [ -f "$node_prefix/include/node/node.h" ]; then export npm_config_nodedir="$node_prefix"; fi
fi
