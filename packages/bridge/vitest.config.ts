import { defineConfig } from "vitest/config";

// packages/cloudkitty's helpers, on a CloudKitty of this package's own (directory and port).
process.env.CK_CLIENT_TEST_DIR ??= "/tmp/ck-bridge-test";
process.env.CK_CLIENT_TEST_PORT ??= "8941";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 900_000,
  },
});
