import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A hang guard, not a speed target: turbo runs packages side by side on 2 cores in CI.
    testTimeout: 60_000,
  },
});
