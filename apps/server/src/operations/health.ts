import type { RuleSetCache } from "@ratecard/api";
import { migrationState, type Database } from "@ratecard/db";

// /healthz says the process is alive (it answers without touching the database); /readyz says it
// can serve: a load balancer sends traffic to an instance only while /readyz is 200.

/** How long the readiness check waits for the database before calling it unreachable. */
const CHECK_MS = 2_000;

export interface Readiness {
  ready: boolean;
  /** Each check: "ok" (or what it found that does not stop serving), or why the instance is not ready. */
  checks: { database: string; migrations: string; rules: string };
}

function within<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_MS} ms`)), CHECK_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const reason = (error: unknown) =>
  error instanceof Error ? error.message.split("\n")[0]! : String(error);

export function createReadinessCheck(database: Database, ruleSets: RuleSetCache) {
  return async function readiness(): Promise<Readiness> {
    const checks: Readiness["checks"] = { database: "ok", migrations: "ok", rules: "ok" };
    let ready = true;
    try {
      // Through the same client and connections the requests use, not a side channel.
      await within(database.prisma.$queryRaw`SELECT 1`);
    } catch (error) {
      checks.database = `unreachable: ${reason(error)}`;
      return { ready: false, checks: { ...checks, migrations: "unknown", rules: "unknown" } };
    }
    try {
      const { pending, unknown } = await within(migrationState(database));
      if (pending.length > 0) {
        ready = false;
        checks.migrations = `not applied: ${pending.join(", ")}`;
      } else if (unknown.length > 0) {
        // A newer Ratecard migrated ahead (a rolling upgrade): this version still serves.
        checks.migrations = `ok; applied by a newer Ratecard: ${unknown.join(", ")}`;
      }
    } catch (error) {
      ready = false;
      checks.migrations = `unreadable: ${reason(error)}`;
    }
    try {
      // The compiled rule set that quotes and previews price with (kept until the data changes).
      await within(ruleSets.get(database.prisma));
    } catch (error) {
      ready = false;
      checks.rules = `not loaded: ${reason(error)}`;
    }
    return { ready, checks };
  };
}
