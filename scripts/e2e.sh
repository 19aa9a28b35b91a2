#!/usr/bin/env bash
# Real-editor end-to-end tests (code-server + Playwright + Debian's Chromium).
echo "e2e: not yet implemented (issue 5)"
