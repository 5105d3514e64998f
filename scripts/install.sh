#!/usr/bin/env bash
# Puts the `loopguard` command on the PATH of the current user, from this clone:
#   bash scripts/install.sh              # set up and build if needed, pack, install with npm, link
#   bash scripts/install.sh --uninstall  # remove what it installed
# The packages are packed with pnpm (as they would be published) and installed with npm into
# <prefix>/lib/loopguard; <prefix>/bin/loopguard links to its command. <prefix> is $LOOPGUARD_PREFIX,
# else npm's global prefix when this user can write there (root, nvm, a user-owned Node), else
# ~/.local. Running it again installs this clone's current state over the last one.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/stage.sh
source scripts/lib/stage.sh

writable() { # a directory this user can write, or create
  local dir=$1
  while [ ! -e "$dir" ]; do dir=$(dirname "$dir"); done
  [ -d "$dir" ] && [ -w "$dir" ]
}

prefix=${LOOPGUARD_PREFIX:-}
if [ -z "$prefix" ]; then
  npm_prefix=$(npm config get prefix 2>/dev/null || true)
  if [ -n "$npm_prefix" ] && writable "$npm_prefix/lib" && writable "$npm_prefix/bin"; then
    prefix=$npm_prefix
  else
    prefix="$HOME/.local"
  fi
fi
app="$prefix/lib/loopguard"
link="$prefix/bin/loopguard"

# The installed loopguard runs in the agents' permission path (their hooks, its MCP server), and
# --uninstall runs it: a folder on the way to it that another local user can change (one of theirs,
# a link of theirs, one group or others can write without the sticky bit) would be their code run as
# this user. Refused, as ssh's StrictModes refuses such a home: this user's and root's are fine, and
# so is a folder writable by this user's own private group (a umask of 002). Both the path as given
# and the folders its links lead to are checked.
me=$(id -u)
changeable_by_others() {
  local dir=$1 mode group
  [ -n "$(find "$dir" -maxdepth 0 \( -uid "$me" -o -uid 0 \) -print)" ] || return 0
  [ -L "$dir" ] && return 1 # a link of this user's or root's: where it leads is checked too
  mode=$(ls -ld "$dir" | cut -c1-10)
  group=$(ls -ld "$dir" | awk '{ print $4 }')
  case "${mode:9:1}" in t | T) return 1 ;; esac
  [ "${mode:8:1}" = w ] && return 0
  [ "${mode:5:1}" = w ] && ! { [ "$group" = "$(id -un)" ] && [ "$(id -gn)" = "$(id -un)" ]; } && return 0
  return 1
}
physical() { # the path with the links of its existing folders resolved
  local path=$1 rest=''
  while [ ! -d "$path" ]; do
    rest="/$(basename "$path")$rest"
    path=$(dirname "$path")
  done
  echo "$(cd -P "$path" && pwd)$rest"
}
for given in "$app" "$prefix/bin"; do
  for path in "$given" "$(physical "$given")"; do
    while [ "$path" != / ] && [ "$path" != . ]; do
      if { [ -e "$path" ] || [ -L "$path" ]; } && changeable_by_others "$path"; then
        echo "loopguard: refusing $path: other users can change it (a link, another user's folder, or one group or others can write); nothing done. Choose another place with LOOPGUARD_PREFIX" >&2
        exit 2
      fi
      path=$(dirname "$path")
    done
  done
done

if [ "${1:-}" = "--uninstall" ]; then
  # First the hooks (user level and every project init recorded), so that none is left pointing at
  # the removed files; when that fails, nothing is removed and the exact commands are printed.
  installed="$app/node_modules/@loopguard/cli/dist/bin.js"
  [ -f "$installed" ] || installed=packages/cli/dist/bin.js
  if [ -f "$installed" ]; then
    if ! node "$installed" uninstall; then
      echo "loopguard: hooks above are still installed, so nothing was removed: run the commands shown, then bash scripts/install.sh --uninstall again" >&2
      exit 1
    fi
  elif [ -f "$HOME/.loopguard/installs.json" ]; then
    echo "loopguard: no loopguard to take the hooks out with; run bash scripts/install.sh, then bash scripts/install.sh --uninstall" >&2
    exit 1
  fi
  if [ ! -e "$app" ] && [ ! -L "$link" ] && [ ! -e "$link" ]; then
    # a second --uninstall, or another prefix: never say it removed what was not there (qa66)
    echo "loopguard: nothing to remove in $prefix (no $link, no $app)"
    exit 0
  fi
  rm -rf "$app"
  rm -f "$link"
  echo "loopguard: removed $link and $app"
  exit 0
elif [ $# -gt 0 ]; then
  echo "usage: bash scripts/install.sh [--uninstall]" >&2
  exit 2
fi

bash scripts/setup.sh
stage "building" bash scripts/pnpm.sh run build
packs=$(mktemp -d "${TMPDIR:-/tmp}/loopguard-packs.XXXXXX")
trap 'rm -rf "$packs"' EXIT
# The command and the packages it depends on, packed as npm would publish them.
stage "packing @loopguard/cli and its packages" \
  bash scripts/pnpm.sh --filter '@loopguard/cli...' pack --pack-destination "$packs"

# shellcheck source=lib/nodeHeaders.sh
source scripts/lib/nodeHeaders.sh
mkdir -p "$app" "$prefix/bin"
[ -f "$app/package.json" ] || echo '{ "name": "loopguard-install", "private": true }' >"$app/package.json"
# loopguard's own packages are replaced by this clone's; their dependencies stay when they still fit.
rm -rf "$app/node_modules/@loopguard" "$app/package-lock.json" "$app/packs"
mv "$packs" "$app/packs"
trap - EXIT
# No install scripts: better-sqlite3 is not compiled a second time, its addon comes from the
# workspace's build (compiled by setup.sh for this node), or is rebuilt when the versions differ.
stage "installing with npm into $app" \
  npm install --prefix "$app" --omit=dev --no-audit --no-fund --ignore-scripts "$app"/packs/*.tgz
reuse_sqlite_addon() {
  local from to
  from=$(dirname "$(node -p "require.resolve('better-sqlite3/package.json', { paths: ['packages/sqlite'] })")")
  to="$app/node_modules/better-sqlite3"
  if [ -f "$from/build/Release/better_sqlite3.node" ] &&
    [ "$(node -p "require('$from/package.json').version")" = "$(node -p "require('$to/package.json').version")" ]; then
    mkdir -p "$to/build/Release"
    cp "$from/build/Release/better_sqlite3.node" "$to/build/Release/better_sqlite3.node"
  else
    npm rebuild --prefix "$app" better-sqlite3
  fi
  node -e "new (require('$to'))(':memory:').close()"
}
stage "better-sqlite3's addon from the workspace (compiled once)" reuse_sqlite_addon
# A startup snapshot loads only in the node that built it, from the place it was built for: it is
# built here, for the installed package (hooks start without it when it is missing or stale).
stage "the hook's startup snapshot for node $(node --version)" \
  node scripts/build-hook-snapshot.mjs "$app/node_modules/@loopguard/cli/dist/bundle"
ln -sfn "$app/node_modules/@loopguard/cli/dist/bin.js" "$link"
stages_done

echo "loopguard $("$link" --version) installed: $link"
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "$prefix/bin is not on your PATH: add  export PATH=\"$prefix/bin:\$PATH\"  to your shell's profile" ;;
esac
echo "Next: in a project, loopguard init claude (or loopguard init gemini, loopguard init codex); see docs/hooks.md"
