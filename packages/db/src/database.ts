import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import BetterSqlite3 from "better-sqlite3";
import { PrismaClient } from "./generated/prisma/client.js";
import { PreparedConnection, registerPreparedConnection } from "./prepared-connection.js";

/**
 * How SQLite makes a commit durable (`PRAGMA synchronous`, in WAL mode). `full` (the default) syncs
 * the log at every commit: an acknowledged write survives a crash of the process or of the machine.
 * `normal` syncs at checkpoints only: it survives a process crash (SIGKILL), but the last commits
 * may be lost on power loss.
 */
export type Durability = "full" | "normal";

export interface DatabaseOptions {
  /** `file:<path>` (SQLite). Relative paths are resolved against the working directory. */
  url: string;
  durability?: Durability;
}

export interface Database {
  prisma: PrismaClient;
  /** The URL actually opened, with an absolute file path. */
  url: string;
  /** `journal_mode` and `synchronous` as in force on Prisma's connection (logged at start). */
  settings: { journalMode: string; synchronous: string };
  /**
   * A number that changes whenever any connection, in this process or another, commits a change to
   * the database: caches of what was read keep their answers while it stays the same. Costs
   * about a microsecond (SQLite's `PRAGMA data_version` on a connection of its own).
   */
  dataVersion: () => number;
  close(): Promise<void>;
}

/** Resolves `file:` URLs to an absolute path so the server and the migration CLI open the same file. */
export function resolveDatabaseUrl(url: string): string {
  if (!url.startsWith("file:")) {
    throw new Error(
      `Unsupported DATABASE_URL "${url}": Ratecard supports SQLite files ("file:<path>").`,
    );
  }
  const filePath = url.slice("file:".length);
  if (filePath === "" || filePath === ":memory:") {
    throw new Error(`DATABASE_URL "${url}" must name a file.`);
  }
  return `file:${path.resolve(filePath)}`;
}

const SYNCHRONOUS_NAMES = ["off", "normal", "full", "extra"];

/**
 * Opens the database in WAL mode (one fsync per commit instead of the rollback journal's four, and
 * readers never block the writer) with the chosen durability, and a second, read-only connection
 * that watches for commits.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const url = resolveDatabaseUrl(options.url);
  const file = url.slice("file:".length);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const durability = options.durability ?? "full";
  const prisma = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url }) });
  // Persistent in the file; set before anything else uses it.
  await prisma.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await prisma.$queryRawUnsafe(`PRAGMA synchronous = ${durability.toUpperCase()}`);
  const [journal] = await prisma.$queryRawUnsafe<{ journal_mode: string }[]>("PRAGMA journal_mode");
  const [sync] =
    await prisma.$queryRawUnsafe<{ synchronous: bigint | number }[]>("PRAGMA synchronous");
  const watcher = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  const dataVersion = watcher.prepare("PRAGMA data_version").pluck();
  const prepared = new PreparedConnection(file, durability);
  registerPreparedConnection(prisma, prepared);
  return {
    prisma,
    url,
    settings: {
      journalMode: journal?.journal_mode ?? "unknown",
      synchronous: SYNCHRONOUS_NAMES[Number(sync?.synchronous)] ?? "unknown",
    },
    dataVersion: () => dataVersion.get() as number,
    close: async () => {
      prepared.close();
      watcher.close();
      await prisma.$disconnect();
    },
  };
}
