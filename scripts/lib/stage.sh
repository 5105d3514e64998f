#!/usr/bin/env bash
# Quiet stages for the setup scripts: `stage "label" command args...` prints one progress line,
# sends the command's output to one log file, and on failure prints the log's tail and its path.
# Source it; LOOPGUARD_LOG names the log (default: a new file under ${TMPDIR:-/tmp}).

if [ -z "${LOOPGUARD_LOG:-}" ]; then
  LOOPGUARD_LOG=$(mktemp "${TMPDIR:-/tmp}/loopguard-setup.XXXXXX")
  export LOOPGUARD_LOG
  loopguard_log_owner=1
fi

# Removes the log after the stages succeeded, when this script created it.
stages_done() {
  if [ -n "${loopguard_log_owner:-}" ]; then rm -f "$LOOPGUARD_LOG"; fi
}

stage() {
  local label=$1
  shift
  local started=$SECONDS
  printf 'loopguard: %s ... ' "$label"
  printf '\n== %s: %s\n' "$label" "$*" >>"$LOOPGUARD_LOG"
  if "$@" >>"$LOOPGUARD_LOG" 2>&1; then
    printf 'done (%ss)\n' "$((SECONDS - started))"
  else
    local code=$?
    printf 'FAILED (exit %s)\n' "$code"
    echo "--- last lines of the log ---" >&2
    tail -n 25 "$LOOPGUARD_LOG" >&2
    echo "loopguard: $label failed; the full log is $LOOPGUARD_LOG" >&2
    exit "$code"
  fi
}
