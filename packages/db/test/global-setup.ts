import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// Runs the tests against PostgreSQL too: starts a throwaway cluster when none is given and the
// binaries are installed (CI: apt-get install -y postgresql). RATECARD_TEST_DATABASE=postgresql
// makes a missing PostgreSQL an error instead of a skip.
const script = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../scripts/postgres-for-tests.sh",
);

export default function setup(): (() => void) | undefined {
  if (process.env.RATECARD_TEST_POSTGRES_URL) return undefined;
  const installed = fs.existsSync("/usr/lib/postgresql");
  if (!installed) {
    if (process.env.RATECARD_TEST_DATABASE === "postgresql") {
      throw new Error("RATECARD_TEST_DATABASE=postgresql, but PostgreSQL is not installed");
    }
    console.warn("PostgreSQL is not installed: the database tests run on SQLite only");
    return undefined;
  }
  const exports = execFileSync(script, ["start"], { encoding: "utf8" });
  const values = Object.fromEntries(
    [...exports.matchAll(/^export (\w+)=(.*)$/gm)].map((match) => [match[1]!, match[2]!]),
  );
  process.env.RATECARD_TEST_POSTGRES_URL = values.RATECARD_TEST_POSTGRES_URL;
  const directory = values.RATECARD_TEST_POSTGRES_DIR!;
  return () => {
    execFileSync(script, ["stop", directory]);
  };
}
