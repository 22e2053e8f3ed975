// The Prisma CLI (generate, migrate deploy) runs entirely offline: the JS query compiler and the
// wasm schema engine, reached through the better-sqlite3 driver adapter. Without `engine: "js"` and a
// DATABASE_URL the CLI tries to download native engines, which this deployment cannot reach.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { defineConfig } from "prisma/config";

process.env.DATABASE_URL ??= "file:./data/ratecard.db";
const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join(here, "../../prisma/schema.prisma"),
  migrations: { path: path.join(here, "../../prisma/migrations") },
  async adapter() {
    return new PrismaBetterSQLite3({ url: process.env.DATABASE_URL! });
  },
});
