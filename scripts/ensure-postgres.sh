#!/usr/bin/env bash
# The PostgreSQL tests start a throw-away cluster of their own (tests/helpers/postgres-cluster.ts)
# and need the server binaries for that (initdb, pg_ctl, postgres), not a running service. npm
# cannot install them, so this installs Debian's package when no initdb is found.
set -euo pipefail
if [ -n "${POSTGRES_BIN_DIR:-}" ] && [ -x "$POSTGRES_BIN_DIR/initdb" ]; then
  exit 0
fi
if command -v initdb >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "PostgreSQL's server binaries are missing: run 'sudo apt-get install -y postgresql' (or set POSTGRES_BIN_DIR)." >&2
  exit 1
fi
echo "Installing Debian's postgresql for the PostgreSQL tests…"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq postgresql >/dev/null
# The package starts a cluster of its own; the tests do not use it, so it is left as Debian set it up.
