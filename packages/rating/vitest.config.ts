import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The property tests price thousands of points, some against CloudKitty's own Python: on a
    // loaded 2-core machine (turbo runs packages side by side) they take longer than vitest's 5 s.
    // The timeout only guards against a hang; speed is the benchmarks' business.
    testTimeout: 120_000,
  },
});
