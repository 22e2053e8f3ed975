import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// `pnpm dev` serves the console on http://127.0.0.1:5173 with hot reload and forwards the API to
// the Ratecard server started beside it (port 8889, or RATECARD_API_URL).
const apiUrl = process.env.RATECARD_API_URL ?? "http://127.0.0.1:8889";

export default defineConfig({
  plugins: [react()],
  server: {
    host: "127.0.0.1",
    port: 5173,
    strictPort: true,
    proxy: {
      "/trpc": apiUrl,
      "/auth": apiUrl,
      "/v1": apiUrl,
      "/healthz": apiUrl,
      "/docs": apiUrl,
    },
  },
  build: {
    outDir: "dist",
    sourcemap: true,
    rolldownOptions: {
      output: {
        // Libraries change less often than the console: separate chunks stay cached across releases.
        codeSplitting: {
          groups: [
            { name: "react", test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
            { name: "tanstack", test: /node_modules[\\/]@tanstack[\\/]/ },
            {
              name: "validation",
              test: /node_modules[\\/](zod|decimal\.js|react-hook-form|@hookform)[\\/]/,
            },
          ],
        },
      },
    },
  },
  // testTimeout: a hang guard, not a speed target (turbo runs packages side by side in CI).
  test: { include: ["src/**/*.test.ts"], environment: "node", testTimeout: 60_000 },
});
