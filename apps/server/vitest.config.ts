import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Hang guards, not speed limits: the tests that drive the real `cloudkitty` CLI (a Python start
    // per command) against the real CloudKitty or Keystone took over 60 s on a loaded 2-core
    // machine while two files ran at once.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Each file starts its own server process; two cores run two at a time.
    maxWorkers: 2,
  },
});
