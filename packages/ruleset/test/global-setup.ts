import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// The export tests run against PostgreSQL too (its snapshot read): a throwaway cluster is started
// when none is given and the binaries are installed, as packages/db's tests do.
// RATECARD_TEST_DATABASE=postgresql makes a missing PostgreSQL an error instead of a skip.
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
    console.warn("PostgreSQL is not installed: the export tests run on SQLite only");
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
