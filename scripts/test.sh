#!/usr/bin/env bash
# Quick start: set everything up and run every check and test (lint, typecheck, unit, HTTP, CLI,
# end-to-end in Chromium).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install-system-deps.sh
source scripts/bootstrap.sh
echo "==> lint and typecheck"
pnpm check
echo "==> tests"
pnpm test
