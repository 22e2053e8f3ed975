import { execFileSync } from "node:child_process";

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
