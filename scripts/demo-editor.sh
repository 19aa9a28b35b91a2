#!/usr/bin/env bash
# Opens examples/ in a real VS Code (placeholder until the extension issue lands).
echo "editor: not yet implemented (issue 5)"
