import path from "node:path";
import type { PrismaClient } from "./generated/prisma/client.js";

/**
 * How SQLite makes a commit durable (`PRAGMA synchronous`, in WAL mode). `full` (the default) syncs
 * the log at every commit: an acknowledged write survives a crash of the process or of the machine.
 * `normal` syncs at checkpoints only: it survives a process crash (SIGKILL), but the last commits
 * may be lost on power loss. PostgreSQL's durability is its own configuration (synchronous_commit).
 */
export type Durability = "full" | "normal";

/**
 * SQLite's page cache per connection, in KiB (`PRAGMA cache_size = -N`): SQLite's own default.
 * better-sqlite3 builds SQLite with 16 MiB instead, and Ratecard's two connections that read and
 * write the rules filled most of that with a 10,000-rule database: 18 MiB of the server's resident
 * memory (issue 8's limit is 150 MiB). The whole rule set is read once per data version (the read
 * snapshot and the pricing rules keep what they answer with), so a larger cache saves little: the
 * pages it would hold are in the operating system's file cache anyway.
 */
export const SQLITE_CACHE_KIB = 2000;

export interface DatabaseOptions {
  /**
   * `file:<path>` (SQLite; relative paths are resolved against the working directory), or a
   * `postgresql://` / `postgres://` URL.
   */
  url: string;
  /** SQLite only. */
  durability?: Durability;
  /**
   * PostgreSQL only: the most connections queries use at once (default 10); one more reads the
   * data version.
   */
  poolSize?: number;
  /** PostgreSQL only: a statement running longer is cancelled (default 10 s; 0: no limit). */
  statementTimeoutMs?: number;
  /** PostgreSQL only: how long to wait for a connection before a query fails (default 5 s). */
  connectTimeoutMs?: number;
}

export type DatabaseProvider = "sqlite" | "postgresql";

export interface Database {
  /**
   * Typed against the SQLite client: both generated clients have the same models and rows, but
   * TypeScript never accepts one for the other, so the PostgreSQL one is cast once, here.
   */
  prisma: PrismaClient;
  provider: DatabaseProvider;
  /** The URL actually opened: an absolute file path, or the PostgreSQL URL without its password. */
  url: string;
  /**
   * What is in force on the connection (logged at start). SQLite: `journal_mode` and
   * `synchronous`; PostgreSQL: `wal` and its `synchronous_commit`.
   */
  settings: { journalMode: string; synchronous: string };
  /**
   * A number that changes whenever a change to the database is committed: caches of what was read
   * keep their answers while it stays the same. SQLite: `PRAGMA data_version` on a connection of
   * its own (about a microsecond), exact for every process. PostgreSQL: moved at once by this
   * process's own writes, and by other instances' within the poll interval (see postgresql.ts).
   */
  dataVersion: () => number;
  /**
   * The same, read from the database itself: exact for every writer, in any process. Costs one
   * query on PostgreSQL.
   */
  readDataVersion: () => Promise<number>;
  /**
   * PostgreSQL only (SQLite's dataVersion() is exact already): brings dataVersion() up to every
   * commit acknowledged before the call, by any instance, with one query shared by the callers
   * that arrive while it is waited for. Call it before serving a request from caches. Rejects when
   * the database cannot be reached.
   */
  catchUp?: () => Promise<void>;
  /** PostgreSQL only: the query pool's connections, open and idle, and requests waiting for one. */
  poolStats?: () => { total: number; idle: number; waiting: number; max: number };
  close(): Promise<void>;
}

/** Which database a DATABASE_URL names, or an error that says what is supported. */
/**
 * The database a Prisma client (or one of its transaction clients) talks to. Code that only holds
 * a client, such as the domain and the accounts, asks here instead of being told. Prisma keeps the
 * generated client's provider in an internal member that transaction clients forward; this is the
 * one place that reads it, so a Prisma upgrade that renames it breaks here, in
 * packages/db/test/schema.test.ts, and not silently in every caller.
 */
export function clientProvider(client: object): DatabaseProvider {
  const provider = (client as { _activeProvider?: unknown })._activeProvider;
  if (provider === "postgresql") return "postgresql";
  if (provider === "sqlite") return "sqlite";
  throw new Error(`Not a Ratecard database client (its provider is ${String(provider)})`);
}

export function databaseProvider(url: string): DatabaseProvider {
  if (url.startsWith("file:")) return "sqlite";
  if (url.startsWith("postgresql://") || url.startsWith("postgres://")) return "postgresql";
  throw new Error(
    `Unsupported DATABASE_URL "${redactUrl(url)}": Ratecard supports SQLite files ("file:<path>") ` +
      'and PostgreSQL ("postgresql://user:password@host:5432/database").',
  );
}

/** A URL fit for logs: the password replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@/]*@/, "//$1:***@");
  }
}

/**
 * Resolves `file:` URLs to an absolute path so the server and the migration CLI open the same
 * file; PostgreSQL URLs are returned as they are.
 */
export function resolveDatabaseUrl(url: string): string {
  if (databaseProvider(url) === "postgresql") return url;
  const filePath = url.slice("file:".length);
  if (filePath === "" || filePath === ":memory:") {
    throw new Error(`DATABASE_URL "${url}" must name a file.`);
  }
  return `file:${path.resolve(filePath)}`;
}

/**
 * Opens the database `options.url` names (see sqlite.ts and postgresql.ts). Each is imported when
 * used: a SQLite process never loads the pg driver and the PostgreSQL client, nor the reverse.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const url = resolveDatabaseUrl(options.url);
  if (databaseProvider(url) === "postgresql") {
    const { openPostgresDatabase } = await import("./postgresql.js");
    return openPostgresDatabase({ ...options, url });
  }
  const { openSqliteDatabase } = await import("./sqlite.js");
  return openSqliteDatabase({ ...options, url });
}
