import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Benchmarks: run on purpose (under flock /tmp/bench.lock), never with the test suite.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL("..", import.meta.url)),
    include: ["bench/**/*.bench.test.ts"],
    testTimeout: 4 * 60 * 60_000,
    hookTimeout: 30 * 60_000,
    maxWorkers: 1,
  },
});
