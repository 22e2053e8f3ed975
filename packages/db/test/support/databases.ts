import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

// The databases a test runs against: a temporary SQLite file always, and a fresh database on the
// PostgreSQL that RATECARD_TEST_POSTGRES_URL names (test/global-setup.ts starts one when the
// binaries are installed; scripts/postgres-for-tests.sh is the same cluster by hand).

export type Provider = "sqlite" | "postgresql";

export const postgresAdminUrl = process.env.RATECARD_TEST_POSTGRES_URL;

/** The providers to run on: PostgreSQL only when a server is there. */
export const providers: Provider[] = postgresAdminUrl ? ["sqlite", "postgresql"] : ["sqlite"];

/** A URL to a new, empty database of that provider. */
export async function emptyDatabaseUrl(provider: Provider, label = "test"): Promise<string> {
  if (provider === "sqlite") {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), `ratecard-${label}-`));
    return `file:${path.join(directory, "ratecard.db")}`;
  }
  if (!postgresAdminUrl) throw new Error("RATECARD_TEST_POSTGRES_URL is not set");
  const name = `ratecard_${label.replace(/\W/g, "_")}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: postgresAdminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
