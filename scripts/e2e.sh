#!/usr/bin/env bash
# Real-editor end-to-end tests: the built .vsix installed into a fresh code-server (VS Code 1.139, web),
# driven by playwright-core with Debian's Chromium, on a copy of examples/.
#   usage: scripts/e2e.sh [TOOLS]        (TOOLS: where scripts/install-editor.sh put code-server; .tools)
# Screenshots and the extension's event log go to test-artifacts/e2e/. Exit 0 when every check passed,
# 1 when one failed. Without Chromium or code-server it says so and skips (exit 0), unless CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
TOOLS=$(cd "${1:-.tools}" 2>/dev/null && pwd || echo "${1:-.tools}")
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
CODE_SERVER="$TOOLS/code-server.sh"
VSIX="$REPO/dist/numba-lens.vsix"
PY="$REPO/.venv/bin/python"
ARTIFACTS="$REPO/test-artifacts/e2e"

skip_or_fail() {
  if [ "${CI:-}" = "true" ]; then
    echo "e2e: FAILED: $1 (CI=true: the real-editor tests must run here)" >&2
    exit 1
  fi
  echo "e2e: SKIPPED: $1 (run 'make editor' or install it; with CI=true this is a failure)"
  exit 0
}
[ -x "$CHROMIUM" ] || skip_or_fail "no Chromium at $CHROMIUM (Debian: apt-get install chromium)"
[ -x "$CODE_SERVER" ] || skip_or_fail "no code-server at $CODE_SERVER (scripts/install-editor.sh installs it)"
[ -f "$VSIX" ] || { echo "e2e: FAILED: $VSIX missing (make vsix)" >&2; exit 1; }
[ -x "$PY" ] || { echo "e2e: FAILED: $PY missing (make venv)" >&2; exit 1; }

# Everything the run writes lives under one scratch folder: no ~/.config, ~/.local or /tmp pollution.
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/numba-lens-e2e.XXXXXX")
mkdir -p "$SCRATCH"/{xdg-config,xdg-data,xdg-cache,tmp,user-data/User,extensions,chromium,workspace}
rm -rf "$ARTIFACTS" && mkdir -p "$ARTIFACTS"
EVENTS="$ARTIFACTS/events.jsonl"
: > "$EVENTS"
SERVER_PID=""

cleanup() {
  local status=$?
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    # code-server runs in its own process group (setsid): end the group, then make sure.
    kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
  fi
  # Anything still running from the scratch workspace is an orphan (language server, worker,
  # debug adapter, gdb, debuggee): report it as a failure and end it.
  local orphans=""
  for proc in /proc/[0-9]*; do
    local cwd
    cwd=$(readlink "$proc/cwd" 2>/dev/null || true)
    if [[ "$cwd" == "$SCRATCH"* ]] && [ "${proc#/proc/}" != "$$" ]; then
      orphans="$orphans ${proc#/proc/}:$(tr '\0' ' ' < "$proc/cmdline" 2>/dev/null | cut -c1-120)"
    fi
  done
  if [ -n "$orphans" ]; then
    sleep 2  # a process group member may still be exiting
    local left=""
    for entry in $orphans; do
      local pid=${entry%%:*}
      if kill -0 "$pid" 2>/dev/null && [[ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" == "$SCRATCH"* ]]; then
        left="$left $pid"
        kill -KILL "$pid" 2>/dev/null || true
      fi
    done
    if [ -n "$left" ]; then
      echo "e2e: FAILED: processes left behind after code-server stopped:$left" >&2
      status=1
    fi
  fi
  cp "$SCRATCH/code-server.log" "$ARTIFACTS/code-server.log" 2>/dev/null || true
  find "$SCRATCH/user-data/logs" -name '*.log' -path '*Numba*' -exec cp {} "$ARTIFACTS/" \; 2>/dev/null || true
  rm -rf "$SCRATCH"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export XDG_CONFIG_HOME="$SCRATCH/xdg-config" XDG_DATA_HOME="$SCRATCH/xdg-data" XDG_CACHE_HOME="$SCRATCH/xdg-cache"
export TMPDIR="$SCRATCH/tmp"

# A copy of examples/ (the analysis writes .numba-lens/ and __pycache__/ into the workspace).
cp -r "$REPO/examples" "$SCRATCH/workspace/examples"
find "$SCRATCH/workspace/examples" -name __pycache__ -prune -exec rm -rf {} +
WORKSPACE="$SCRATCH/workspace/examples"

cat > "$SCRATCH/user-data/User/settings.json" <<JSON
{
  "numbaLens.interpreter": ["$PY"],
  "chat.disableAIFeatures": true,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.sideBar.location": "left",
  "editor.minimap.enabled": false,
  "extensions.ignoreRecommendations": true,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "debug.openDebug": "openOnDebugBreak",
  "window.zoomLevel": 0
}
JSON
printf 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n' > "$SCRATCH/config.yaml"

echo "e2e: installing $(basename "$VSIX") into a fresh extensions folder"
"$CODE_SERVER" --config "$SCRATCH/config.yaml" --user-data-dir "$SCRATCH/user-data" \
  --extensions-dir "$SCRATCH/extensions" --install-extension "$VSIX" > "$SCRATCH/install.log" 2>&1 \
  || { cat "$SCRATCH/install.log"; echo "e2e: FAILED: could not install the .vsix" >&2; exit 1; }

PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "e2e: starting code-server on 127.0.0.1:$PORT"
NUMBA_LENS_TEST_EVENTS="$EVENTS" setsid "$CODE_SERVER" --config "$SCRATCH/config.yaml" \
  --bind-addr "127.0.0.1:$PORT" --auth none --disable-telemetry --disable-update-check \
  --disable-workspace-trust --disable-getting-started-override --reconnection-grace-time 5 \
  --user-data-dir "$SCRATCH/user-data" --extensions-dir "$SCRATCH/extensions" "$WORKSPACE" \
  > "$SCRATCH/code-server.log" 2>&1 < /dev/null &
SERVER_PID=$!
for _ in $(seq 1 300); do
  if "$PY" -c "import urllib.request, sys; urllib.request.urlopen('http://127.0.0.1:$PORT/healthz', timeout=1)" 2>/dev/null; then break; fi
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$SCRATCH/code-server.log"; echo "e2e: FAILED: code-server exited" >&2; exit 1; }
  sleep 0.1
done

node esbuild.mjs --e2e > /dev/null 2>&1
E2E_URL="http://127.0.0.1:$PORT/?folder=$WORKSPACE" E2E_WORKSPACE="$WORKSPACE" E2E_EVENTS="$EVENTS" \
E2E_ARTIFACTS="$ARTIFACTS" E2E_CHROMIUM="$CHROMIUM" E2E_PROFILE="$SCRATCH/chromium" \
  timeout 900 node dist/e2e/e2e.js
