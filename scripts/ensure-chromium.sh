#!/usr/bin/env bash
# The browser tests drive Debian's Chromium through playwright-core; npm cannot
# install a browser here, so this installs the system package when it is missing.
set -euo pipefail
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$chromium_path" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Chromium is missing at $chromium_path: run 'sudo apt-get install -y chromium' (or set CHROMIUM_PATH)." >&2
  exit 1
fi
echo "Installing Debian's chromium for the browser tests…"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
