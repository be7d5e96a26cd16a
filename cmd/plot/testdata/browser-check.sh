#!/usr/bin/env bash
# Checks plot's index.html in headless Chromium (browser-check.mjs says what is checked) and saves screenshots.
# Usage: cmd/plot/testdata/browser-check.sh PAGE.html SHOTDIR [PREFIX]
# It installs puppeteer-core (pinned) into a scratch directory removed on exit; the browser is CHROMIUM, default
# /usr/bin/chromium (Debian: apt-get install -y chromium). Exit status: the check's (0 ok, 1 failures, 2 usage).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 PAGE.html SHOTDIR [PREFIX]" >&2; exit 2; }
puppeteer_version=24.43.1 # the last release for Node 20 (25.x wants Node >= 22.12); it drives Chromium 156
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$here/browser-check.mjs" "$dir/"
(cd "$dir" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent "puppeteer-core@$puppeteer_version" >/dev/null)
node "$dir/browser-check.mjs" "$@"
