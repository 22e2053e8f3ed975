#!/usr/bin/env bash
# Quick start: set everything up and serve REST, RPC and the console on http://127.0.0.1:8889
# with an embedded SQLite database in ./data/ (HOST, PORT, DATABASE_URL... override: see README).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/bootstrap.sh
# Memory (issue 8: at most 150 MiB resident with 10,000 rules). The live heap is about 35 MiB, but
# V8's defaults are sized for a big machine: a 32 MiB young generation, and an old generation that
# may grow to 4 times its live size before a full collection (twice that after a burst of quotes).
# A 4 MiB semi-space and a 512 MiB old-space limit (V8 then grows the old generation by 1.4x at
# most) halve the resident size after the benchmark at the same throughput; 4 MiB rather than 1
# (measured 1, 2 and 4: docs/performance.md) costs no resident memory and spares the quotes and
# the small GETs scavenges and promotions (CPU per answer 10-35% lower). glibc gives every
# thread that mallocs an arena of its own; two are enough for libuv's and V8's helper threads.
# glibc also raises its mmap threshold after a large buffer is freed, so later large buffers come
# from the heap and what they leave is kept: fixed thresholds of 128 KiB give it back (about 9 MiB
# less after the benchmark). Set after the build (tsc and Vite keep their own defaults); a
# caller's own NODE_OPTIONS come last and win, a caller's MALLOC_* settings replace these.
# apps/bench reads these lines to start the server the same way.
export NODE_OPTIONS="--max-semi-space-size=4 --max-old-space-size=512${NODE_OPTIONS:+ $NODE_OPTIONS}"
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
export MALLOC_TRIM_THRESHOLD_="${MALLOC_TRIM_THRESHOLD_:-131072}"
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"
# The server itself, not a package manager around it: one process to signal and to measure.
exec node apps/server/dist/main.js
