#!/usr/bin/env bash
# Installs the toolchain and dependencies and builds everything, on a machine that has only Node 20
# and npm. Idempotent: a second run takes seconds. Sourced by scripts/start.sh and scripts/test.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PNPM_VERSION=10.34.9   # pinned: pnpm 11+ needs Node 22, npm's latest pnpm 12 breaks --frozen-lockfile here
export TURBO_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1
# better-sqlite3 has no reachable prebuilt binary: node-gyp builds it against Node's own headers.
export npm_config_nodedir="${npm_config_nodedir:-/usr}"

if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  echo "==> installing pnpm $PNPM_VERSION"
  npm install --global "pnpm@$PNPM_VERSION"
fi

echo "==> installing dependencies"
pnpm install --frozen-lockfile
echo "==> building"
pnpm build
