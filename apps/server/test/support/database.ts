import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";

/** True when a TestServer's `databasePath` is a PostgreSQL database (RATECARD_TEST_DATABASE). */
export const isPostgres = (databasePath: string) => /^postgres(ql)?:\/\//.test(databasePath);

/**
 * Runs one SQL query on a test server's database, behind the server's back, with the database's
 * own shell (sqlite3 on the file, psql on the URL), and returns its output unaligned and trimmed:
 * a single value comes back as its text.
 */
export function queryDatabase(databasePath: string, sql: string): string {
  const output = isPostgres(databasePath)
    ? execFileSync("psql", [
        "-X",
        "-q",
        "-A",
        "-t",
        "-v",
        "ON_ERROR_STOP=1",
        "-d",
        databasePath,
        "-c",
        sql,
      ])
    : execFileSync("sqlite3", [databasePath, sql]);
  return output.toString().trim();
}

/**
 * With RATECARD_TEST_DATABASE=postgresql, servers get a new database each on the PostgreSQL that
 * RATECARD_TEST_POSTGRES_URL names (`scripts/postgres-for-tests.sh run <command>` sets both).
 */
export function newPostgresDatabase(): string {
  const adminUrl = process.env.RATECARD_TEST_POSTGRES_URL;
  if (!adminUrl) {
    throw new Error(
      "RATECARD_TEST_DATABASE=postgresql needs RATECARD_TEST_POSTGRES_URL: run the tests with " +
        "scripts/postgres-for-tests.sh run <command>",
    );
  }
  const name = `ratecard_server_${randomBytes(6).toString("hex")}`;
  execFileSync("psql", [
    "-X",
    "-q",
    "-v",
    "ON_ERROR_STOP=1",
    "-d",
    adminUrl,
    "-c",
    `CREATE DATABASE "${name}"`,
  ]);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
