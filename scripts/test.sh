#!/usr/bin/env bash
# Quick start: set everything up and run every check and test (lint, typecheck, unit, HTTP, CLI,
# end-to-end in Chromium, and against a real Keystone and Horizon; the server's suite on SQLite and
# on PostgreSQL).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install-system-deps.sh
source scripts/bootstrap.sh
echo "==> lint and typecheck"
pnpm check
echo "==> Keystone and Horizon for the identity tests (Debian packages, loopback only)"
bash scripts/openstack-for-tests.sh --horizon http://127.0.0.1:8889
echo "==> tests"
pnpm test
echo "==> the server's HTTP suite again, on a throwaway PostgreSQL (a database per test server)"
bash scripts/postgres-for-tests.sh run pnpm --filter @ratecard/server test
echo "==> Horizon's CloudKitty dashboard against Ratecard"
pnpm --filter @ratecard/e2e test:horizon
echo "==> the server benchmark, as a smoke run (figures are not a gate: see apps/bench/README.md)"
pnpm --filter @ratecard/bench bench --quick
