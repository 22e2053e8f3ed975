import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import BetterSqlite3 from "better-sqlite3";
import { PrismaClient } from "./generated/prisma/client.js";
import type { Database, DatabaseOptions } from "./database.js";
import { PreparedConnection, registerPreparedConnection } from "./prepared-connection.js";

const SYNCHRONOUS_NAMES = ["off", "normal", "full", "extra"];

/**
 * Opens the SQLite file (`url` is resolved, absolute) in WAL mode (one fsync per commit instead of
 * the rollback journal's four, and readers never block the writer) with the chosen durability,
 * and a second, read-only connection that watches for commits.
 */
export async function openSqliteDatabase(options: DatabaseOptions): Promise<Database> {
  const { url } = options;
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
  const dataVersionStatement = watcher.prepare("PRAGMA data_version").pluck();
  const dataVersion = () => dataVersionStatement.get() as number;
  const prepared = new PreparedConnection(file, durability);
  registerPreparedConnection(prisma, prepared);
  return {
    prisma,
    provider: "sqlite",
    url,
    settings: {
      journalMode: journal?.journal_mode ?? "unknown",
      synchronous: SYNCHRONOUS_NAMES[Number(sync?.synchronous)] ?? "unknown",
    },
    dataVersion,
    readDataVersion: () => Promise.resolve(dataVersion()),
    close: async () => {
      prepared.close();
      watcher.close();
      await prisma.$disconnect();
    },
  };
}
