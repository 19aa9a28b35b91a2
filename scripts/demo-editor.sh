#!/usr/bin/env bash
# Opens examples/ in a real VS Code with the built extension:
#   - your `code` when it is on PATH (the .vsix is installed into it), else
#   - the local code-server (scripts/install-editor.sh) on 127.0.0.1, with its own profile under
#     TOOLS/demo/, kept running in the foreground until Ctrl-C.
# With CI=true or no terminal, it starts code-server, checks that it answers, prints the URL and stops.
#   usage: scripts/demo-editor.sh [TOOLS]     (environment: PORT to choose the port)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
TOOLS=${1:-.tools}
mkdir -p "$TOOLS" && TOOLS=$(cd "$TOOLS" && pwd)
VSIX="$REPO/dist/numba-lens.vsix"
PY="$REPO/.venv/bin/python"
EXAMPLES="$REPO/examples"
INTERACTIVE=false
if [ -t 0 ] && [ -t 1 ] && [ "${CI:-}" != "true" ]; then INTERACTIVE=true; fi

[ -f "$VSIX" ] || { echo "editor: $VSIX is missing (make vsix)"; exit 1; }

if $INTERACTIVE && command -v code >/dev/null 2>&1; then
  echo "editor: installing $(basename "$VSIX") into your VS Code and opening examples/"
  code --install-extension "$VSIX" --force
  code "$EXAMPLES"
  echo "editor: set \"numbaLens.interpreter\": [\"$PY\"] if your default Python has no Numba."
  exit 0
fi

CODE_SERVER="$TOOLS/code-server.sh"
if [ ! -x "$CODE_SERVER" ]; then
  echo "editor: no editor can be started here: 'code' is not on PATH and code-server is not installed"
  echo "editor: (run 'make editor' to install code-server under $TOOLS, or install VS Code and run"
  echo "editor:  code --install-extension $VSIX && code $EXAMPLES)"
  exit 0
fi

# A persistent profile (settings, installed extension) under TOOLS/demo, away from the home directory.
DEMO="$TOOLS/demo"
mkdir -p "$DEMO"/{xdg-config,xdg-data,xdg-cache,tmp,user-data/User,extensions}
export XDG_CONFIG_HOME="$DEMO/xdg-config" XDG_DATA_HOME="$DEMO/xdg-data" XDG_CACHE_HOME="$DEMO/xdg-cache" TMPDIR="$DEMO/tmp"
SETTINGS="$DEMO/user-data/User/settings.json"
if [ ! -f "$SETTINGS" ]; then
  cat > "$SETTINGS" <<JSON
{
  "numbaLens.interpreter": ["$PY"],
  "chat.disableAIFeatures": true,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "workbench.startupEditor": "none",
  "telemetry.telemetryLevel": "off"
}
JSON
fi
printf 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n' > "$DEMO/config.yaml"
"$CODE_SERVER" --config "$DEMO/config.yaml" --user-data-dir "$DEMO/user-data" --extensions-dir "$DEMO/extensions" \
  --install-extension "$VSIX" --force > "$DEMO/install.log" 2>&1 \
  || { cat "$DEMO/install.log"; echo "editor: could not install the extension into code-server"; exit 1; }

PORT=${PORT:-$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
URL="http://127.0.0.1:$PORT/?folder=$EXAMPLES"
setsid "$CODE_SERVER" --config "$DEMO/config.yaml" --bind-addr "127.0.0.1:$PORT" --auth none \
  --disable-telemetry --disable-update-check --disable-getting-started-override --reconnection-grace-time 5 \
  --user-data-dir "$DEMO/user-data" --extensions-dir "$DEMO/extensions" "$EXAMPLES" \
  > "$DEMO/code-server.log" 2>&1 < /dev/null &
SERVER_PID=$!
stop() {
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
  fi
}
trap stop EXIT
trap 'echo; echo "editor: stopped"; exit 0' INT TERM

answered=false
for _ in $(seq 1 300); do
  if "$PY" -c "import urllib.request; urllib.request.urlopen('$URL', timeout=1)" 2>/dev/null; then answered=true; break; fi
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
if ! $answered; then
  tail -20 "$DEMO/code-server.log"
  echo "editor: code-server did not answer on 127.0.0.1:$PORT"
  exit 1
fi

echo "editor: Numba Lens in code-server (VS Code $("$CODE_SERVER" --version 2>/dev/null | tail -1 | sed 's/.*with Code //')):"
echo "    $URL"
if $INTERACTIVE; then
  echo "editor: open that address in a browser on this machine; Ctrl-C stops the editor."
  wait "$SERVER_PID"
else
  echo "editor: answered (no terminal or CI=true, so it is stopped again)."
fi
