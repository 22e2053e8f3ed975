import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient as PostgresPrismaClient } from "./generated/postgresql/client.js";
import type { PrismaClient } from "./generated/prisma/client.js";
import { redactUrl, type Database, type DatabaseOptions } from "./database.js";

const DEFAULT_POOL_SIZE = 10;
const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** How soon another instance's commit moves this instance's dataVersion(). */
const VERSION_POLL_MS = 200;

/**
 * The database's version: the sum of the counters that a statement-level trigger on every table
 * moves inside the writing transaction (see prisma/postgresql/migrations/*_init), so a new version
 * is visible exactly when the write is.
 */
const READ_VERSION = `SELECT sum("version")::text AS "version" FROM "ratecard_data_version"`;

/** Operations that never write; any other one moves this process's version when it settles. */
const READ_OPERATIONS = new Set([
  "findUnique",
  "findUniqueOrThrow",
  "findFirst",
  "findFirstOrThrow",
  "findMany",
  "count",
  "aggregate",
  "groupBy",
]);

/** The statement text of a raw query's arguments, or "" when it cannot be told. */
function rawSql(args: unknown): string {
  if (typeof args === "string") return args;
  if (Array.isArray(args)) return rawSql(args[0]);
  if (args && typeof args === "object") {
    const { sql, strings } = args as { sql?: unknown; strings?: unknown };
    if (typeof sql === "string") return sql;
    if (Array.isArray(strings)) return strings.join("?");
  }
  return "";
}

function mayWrite(operation: string, args: unknown): boolean {
  if (READ_OPERATIONS.has(operation)) return false;
  if (operation === "$queryRaw" || operation === "$queryRawUnsafe") {
    return !/^\s*(select|show)\b/i.test(rawSql(args));
  }
  return true;
}

/**
 * Opens a bounded pool of connections (`pg`) to the PostgreSQL database `url` names, with a
 * statement timeout and a connect timeout, so that a database that is slow or gone makes queries
 * fail instead of hang; Prisma runs on it through the driver adapter.
 *
 * dataVersion() must be synchronous (it is read on every request) and can not ask PostgreSQL, so
 * it is this process's own number: moved after every statement that may have written and after
 * every transaction settles (so a cache filled while the write was uncommitted is dropped after
 * the commit), before the write's caller goes on, and whenever a poll of the database's version,
 * every VERSION_POLL_MS, finds that another instance committed. So this process never serves its
 * own stale data, and another instance's for VERSION_POLL_MS at most, unless catchUp() is awaited
 * first: the server does that before every request, so a write acknowledged by any instance is
 * seen by the next request anywhere. readDataVersion() reads the database's version itself (one
 * query): exact for every instance.
 */
export async function openPostgresDatabase(options: DatabaseOptions): Promise<Database> {
  const connection = {
    connectionString: options.url,
    statement_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    application_name: "ratecard",
  };
  const pool = new pg.Pool({ ...connection, max: options.poolSize ?? DEFAULT_POOL_SIZE });
  // The version is read on a connection of its own: after a write inside a transaction that holds
  // the pool's last connection, a read from the pool would wait for that very transaction.
  const versionPool = new pg.Pool({ ...connection, max: 1 });
  // An idle connection that the server dropped (a restart) is an 'error' event on the pool, fatal
  // when nobody listens; the pool replaces it on the next checkout, and queries report their own.
  pool.on("error", () => {});
  versionPool.on("error", () => {});

  const readDataVersion = async () => {
    const { rows } = await versionPool.query<{ version: string | null }>(READ_VERSION);
    return Number(rows[0]?.version ?? 0);
  };

  let version = 0;
  /** Statements that may have written, started by this process (in a transaction or not). */
  let writes = 0;
  let seen: number | undefined;
  try {
    seen = await readDataVersion();
  } catch (error) {
    await Promise.all([pool.end(), versionPool.end()]);
    throw new Error(`Cannot reach PostgreSQL at ${redactUrl(options.url)}: ${String(error)}`, {
      cause: error,
    });
  }
  /**
   * Moves the version once the database's version has been read: every commit that read saw
   * (this process's own included) is covered by this move, and a later commit by another instance
   * makes the poll find a different sum. Moving before the read would let a commit land between
   * the two unnoticed; not reading would make the poll move it a second time for our own write.
   */
  const caughtUp = async () => {
    try {
      seen = await readDataVersion();
    } catch {
      seen = undefined;
    }
    version++;
  };
  /** Reads the database's version and moves ours if another commit landed since the last read. */
  const refresh = async () => {
    const current = await readDataVersion();
    if (current !== seen) {
      seen = current;
      version++;
    }
  };
  // A read answers for the callers that arrived before it was sent; one that arrives while a read
  // is on its way waits for the next one, which all such callers share.
  let inFlight: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const startRead = () => {
    const read = refresh().finally(() => {
      if (inFlight === read) inFlight = undefined;
    });
    inFlight = read;
    return read;
  };
  const catchUp = (): Promise<void> => {
    if (!inFlight) return startRead();
    next ??= inFlight
      .catch(() => {})
      .then(() => {
        next = undefined;
        return startRead();
      });
    return next;
  };
  const poll = setInterval(() => {
    readDataVersion().then(
      (current) => {
        if (current !== seen) {
          seen = current;
          version++;
        }
      },
      () => {
        // Unreachable: whatever happened meanwhile, the next answer counts as a change.
        seen = undefined;
      },
    );
  }, VERSION_POLL_MS);
  poll.unref();

  const client = new PostgresPrismaClient({
    adapter: releasingFailedTransactions(new PrismaPg(pool)),
  });
  const extended = client.$extends({
    query: {
      async $allOperations({ operation, args, query }) {
        if (!mayWrite(operation, args)) return (await query(args)) as unknown;
        writes++;
        try {
          return (await query(args)) as unknown;
        } finally {
          await caughtUp();
        }
      },
    },
  });
  const prisma = new Proxy(extended, {
    get(target, property) {
      if (property === "$transaction") {
        // A transaction that only read (loading the rule set) must not move the version.
        return async (...args: unknown[]) => {
          const writesBefore = writes;
          try {
            return await (target.$transaction as (...a: unknown[]) => Promise<unknown>)(...args);
          } finally {
            if (writes !== writesBefore) await caughtUp();
          }
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? (value as () => unknown).bind(target) : value;
    },
  }) as unknown as PrismaClient;

  const { rows } = await pool.query<{ synchronous_commit: string }>("SHOW synchronous_commit");
  return {
    prisma,
    provider: "postgresql",
    url: redactUrl(options.url),
    settings: { journalMode: "wal", synchronous: rows[0]?.synchronous_commit ?? "unknown" },
    dataVersion: () => version,
    readDataVersion,
    catchUp,
    poolStats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: options.poolSize ?? DEFAULT_POOL_SIZE,
    }),
    close: async () => {
      clearInterval(poll);
      await client.$disconnect();
      await Promise.all([pool.end(), versionPool.end()]);
    },
  };
}

type PgAdapter = Awaited<ReturnType<PrismaPg["connect"]>>;
type PgTransaction = Awaited<ReturnType<PgAdapter["startTransaction"]>>;

/**
 * adapter-pg 6.19.3 hands a transaction's connection back to the pool only in commit() and
 * rollback(), which Prisma calls after its own COMMIT or ROLLBACK statement succeeded. When that
 * statement fails (a deferred constraint, a conflict, the server going away mid-commit), the
 * connection is never returned, and after `poolSize` such failures every query waits for a
 * connection that never comes. Here a transaction whose ending fails returns its connection at
 * once, marked broken (the pool closes it), and a later commit() or rollback() does nothing.
 */
function releasingFailedTransactions(factory: PrismaPg): PrismaPg {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const start = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (...args) => {
      const transaction: PgTransaction = await start(...args);
      // adapter-pg's transaction holds its pool connection as `client`.
      const connection = (transaction as unknown as { client: pg.PoolClient }).client;
      let returned = false;
      const execute = transaction.executeRaw.bind(transaction);
      transaction.executeRaw = async (query) => {
        try {
          return await execute(query);
        } catch (error) {
          if (!returned && /^\s*(commit|rollback)\b/i.test(query.sql)) {
            returned = true;
            connection.release(error instanceof Error ? error : new Error(String(error)));
          }
          throw error;
        }
      };
      const commit = transaction.commit.bind(transaction);
      const rollback = transaction.rollback.bind(transaction);
      transaction.commit = async () => {
        if (returned) return;
        returned = true;
        await commit();
      };
      transaction.rollback = async () => {
        if (returned) return;
        returned = true;
        await rollback();
      };
      return transaction;
    };
    return adapter;
  };
  return factory;
}
