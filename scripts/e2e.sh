#!/usr/bin/env bash
# Real-editor end-to-end tests: the built .vsix installed into a fresh code-server (VS Code 1.139, web),
# driven by playwright-core with Debian's Chromium, on a copy of examples/ (the debugger scenario: of
# tests/e2e/programs/).
#   usage: scripts/e2e.sh [TOOLS]        (TOOLS: where scripts/install-editor.sh put code-server; .tools)
#   E2E_ONLY=name[,name]  runs some scenarios only (main, no-numba, untrusted, debugger, profile, notebook)
#   E2E_PUBLISH=1         copies each green scenario's README shots (its publish/ folder) into docs/images/
#   E2E_STEPS=regex       runs the matching feature steps of the debugger scenario only
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
  echo "e2e: SKIPPED: $1; the real-editor tests did not run (with CI=true this is a failure)"
  exit 0
}
[ -x "$CHROMIUM" ] || skip_or_fail "no Chromium at $CHROMIUM (Debian: apt-get install chromium)"
[ -x "$CODE_SERVER" ] || skip_or_fail "no code-server at $CODE_SERVER (scripts/install-editor.sh installs it)"
[ -f "$VSIX" ] || { echo "e2e: FAILED: $VSIX missing (make vsix)" >&2; exit 1; }
[ -x "$PY" ] || { echo "e2e: FAILED: $PY missing (make venv)" >&2; exit 1; }

# Everything the run writes lives under one scratch folder: no ~/.config, ~/.local or /tmp pollution.
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/numba-lens-e2e.XXXXXX")
mkdir -p "$SCRATCH"/{xdg-config,xdg-data,xdg-cache,tmp,extensions}
rm -rf "$ARTIFACTS" && mkdir -p "$ARTIFACTS"
SERVER_PID=""
FAILED_SCENARIOS=""

stop_code_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    # code-server runs in its own process group (setsid): end the group, then make sure.
    kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}

# Anything still running from the scratch folder after code-server stopped is an orphan (language
# server, analysis worker, debug adapter, gdb, debuggee): report it, end it, and fail.
check_orphans() {
  local left="" pid
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    left=""
    for proc in /proc/[0-9]*; do
      pid=${proc#/proc/}
      [ "$pid" = "$$" ] && continue
      if [[ "$(readlink "$proc/cwd" 2>/dev/null)" == "$SCRATCH"* ]]; then left="$left $pid"; fi
    done
    [ -z "$left" ] && return 0
    sleep 0.5
  done
  for pid in $left; do
    echo "e2e: left behind: $pid $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-160)" >&2
    kill -KILL "$pid" 2>/dev/null || true
  done
  return 1
}

cleanup() {
  local status=$?
  stop_code_server
  check_orphans || status=1
  rm -rf "$SCRATCH"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export XDG_CONFIG_HOME="$SCRATCH/xdg-config" XDG_DATA_HOME="$SCRATCH/xdg-data" XDG_CACHE_HOME="$SCRATCH/xdg-cache"
export TMPDIR="$SCRATCH/tmp"
printf 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n' > "$SCRATCH/config.yaml"

echo "e2e: installing $(basename "$VSIX") into a fresh extensions folder"
"$CODE_SERVER" --config "$SCRATCH/config.yaml" --user-data-dir "$SCRATCH/install-profile" \
  --extensions-dir "$SCRATCH/extensions" --install-extension "$VSIX" > "$SCRATCH/install.log" 2>&1 \
  || { cat "$SCRATCH/install.log"; echo "e2e: FAILED: could not install the .vsix" >&2; exit 1; }
node esbuild.mjs --e2e > /dev/null 2>&1

# run_scenario NAME INTERPRETER TRUST [FOLDER]: a fresh profile and a fresh copy of FOLDER (examples/),
# one code-server, one Playwright run of tests/e2e/e2e.ts in that scenario; TRUST is "trusted" or "prompt".
run_scenario() {
  local name=$1 interpreter=$2 trust=$3 folder=${4:-examples}
  # E2E_ONLY=name[,name] runs a subset (for working on one scenario).
  if [ -n "${E2E_ONLY:-}" ] && [[ ",$E2E_ONLY," != *",$name,"* ]]; then return 0; fi
  local dir="$SCRATCH/$name" out="$ARTIFACTS/$name"
  mkdir -p "$dir/user-data/User" "$dir/chromium" "$dir/workspace" "$out"
  # A copy of the folder (the analysis writes .numba-lens/ and __pycache__/ into the workspace).
  local workspace
  workspace="$dir/workspace/$(basename "$folder")"
  cp -r "$REPO/$folder" "$workspace"
  find "$workspace" -name __pycache__ -prune -exec rm -rf {} +
  local events="$out/events.jsonl"
  : > "$events"
  cat > "$dir/user-data/User/settings.json" <<JSON
{
  "numbaLens.interpreter": ["$interpreter"],
  "chat.disableAIFeatures": true,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.sideBar.location": "left",
  "editor.minimap.enabled": false,
  "extensions.ignoreRecommendations": true,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "window.zoomLevel": 0
}
JSON
  local trust_flag="--disable-workspace-trust"
  [ "$trust" = "prompt" ] && trust_flag=""
  local port
  port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  echo "e2e: [$name] code-server on 127.0.0.1:$port, interpreter $interpreter, workspace trust: $trust"
  # shellcheck disable=SC2086
  NUMBA_LENS_TEST_EVENTS="$events" setsid "$CODE_SERVER" --config "$SCRATCH/config.yaml" \
    --bind-addr "127.0.0.1:$port" --auth none --disable-telemetry --disable-update-check \
    $trust_flag --disable-getting-started-override --reconnection-grace-time 5 \
    --user-data-dir "$dir/user-data" --extensions-dir "$SCRATCH/extensions" "$workspace" \
    > "$out/code-server.log" 2>&1 < /dev/null &
  SERVER_PID=$!
  local up=false
  for _ in $(seq 1 300); do
    if "$PY" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/healthz', timeout=1)" 2>/dev/null; then up=true; break; fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  local status=0 started=$SECONDS
  if ! $up; then
    tail -20 "$out/code-server.log"; echo "e2e: [$name] FAILED: code-server did not start" >&2; status=1
  else
    E2E_PYTHON="$interpreter" E2E_SCENARIO="$name" E2E_URL="http://127.0.0.1:$port/?folder=$workspace" E2E_WORKSPACE="$workspace" \
    E2E_EVENTS="$events" E2E_ARTIFACTS="$out" E2E_CHROMIUM="$CHROMIUM" E2E_PROFILE="$dir/chromium" \
      timeout 900 node dist/e2e/e2e.js || status=1
  fi
  stop_code_server
  find "$dir/user-data/logs" -name '*Numba Lens*.log' -exec cp {} "$out/" \; 2>/dev/null || true
  check_orphans || { echo "e2e: [$name] FAILED: processes were left behind" >&2; status=1; }
  echo "e2e: [$name] $([ $status = 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s"
  [ $status = 0 ] || FAILED_SCENARIOS="$FAILED_SCENARIOS $name"
  return $status
}

# The user's view: diagnostics, hover, lenses, the Debug JIT function session, an IR view.
run_scenario main "$PY" trusted || true
# An interpreter without Numba: one clear message with the install command, status "failed", no crash loop.
# (A bare venv: no site-packages, so no Numba whatever the machine has.)
python3 -m venv --without-pip "$SCRATCH/bare-venv"
run_scenario no-numba "$SCRATCH/bare-venv/bin/python" trusted || true
# An untrusted workspace: nothing analysed, the status says why; trusting it restarts the server.
run_scenario untrusted "$PY" prompt || true
# The debugger in depth, one session per feature (tests/e2e/scenario-debugger.ts), on tests/e2e/programs/;
# its cropped shots are the README's debugging images.
run_scenario debugger "$PY" trusted tests/e2e/programs || true
# The profiler (tests/e2e/scenario-profile.ts): Profile lens, heat overlay, hot spots, flame graph.
run_scenario profile "$PY" trusted tests/e2e/programs || true
# A notebook (tests/e2e/scenario-notebook.ts): examples/notebook.ipynb in the built-in notebook editor.
run_scenario notebook "$PY" trusted || true

# E2E_PUBLISH=1: every green scenario's README shots (its publish/ folder) are copied into docs/images/.
if [ "${E2E_PUBLISH:-}" = 1 ]; then
  for published in "$ARTIFACTS"/*/publish; do
    scenario=$(basename "$(dirname "$published")")
    case " $FAILED_SCENARIOS " in *" $scenario "*) continue ;; esac
    shots=("$published/"*.jpg)
    [ -e "${shots[0]}" ] || continue
    mkdir -p "$REPO/docs/images"
    cp "${shots[@]}" "$REPO/docs/images/"
    echo "e2e: published ${#shots[@]} $scenario shots to docs/images/: $(cd "$published" && echo *.jpg)"
  done
fi

if [ -n "$FAILED_SCENARIOS" ]; then
  echo "e2e: FAILED scenarios:$FAILED_SCENARIOS (screenshots and logs in $ARTIFACTS)" >&2
  exit 1
fi
echo "e2e: all scenarios passed (screenshots and logs in $ARTIFACTS)"
