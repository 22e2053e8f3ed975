#!/usr/bin/env bash
# Quick start: set everything up and serve REST, RPC and the console on http://127.0.0.1:8889
# with an embedded SQLite database in ./data/ (HOST, PORT, DATABASE_URL... override: see README).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/bootstrap.sh
# The server itself, not a package manager around it: one process to signal and to measure.
exec node apps/server/dist/main.js
