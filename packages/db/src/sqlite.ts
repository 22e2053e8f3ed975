import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import BetterSqlite3 from "better-sqlite3";
import { PrismaClient } from "./generated/prisma/client.js";
import { SQLITE_CACHE_KIB, type Database, type DatabaseOptions } from "./database.js";
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
  const prisma = new PrismaClient({
    adapter: new SerializedSqliteAdapterFactory(new PrismaBetterSQLite3({ url })),
  });
  // Persistent in the file; set before anything else uses it.
  await prisma.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await prisma.$queryRawUnsafe(`PRAGMA synchronous = ${durability.toUpperCase()}`);
  await prisma.$queryRawUnsafe(`PRAGMA cache_size = -${SQLITE_CACHE_KIB}`);
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

type SqliteAdapter = Awaited<ReturnType<PrismaBetterSQLite3["connect"]>>;

/**
 * The better-sqlite3 adapter runs every query on one connection, and an interactive transaction
 * holds that connection across awaits while queries outside it run at once, on the same
 * connection, inside the open transaction: another request's write would be rolled back with it
 * (or committed with it), and its reads would see uncommitted rows. This factory's adapter queues
 * queries outside a transaction behind any open transaction, and transactions behind each other,
 * as separate connections would. Code inside a transaction must use its client: a query on the
 * outer client there waits for the transaction's end (until its timeout).
 */
class SerializedSqliteAdapterFactory {
  readonly provider = "sqlite" as const;
  readonly adapterName: string;

  constructor(private readonly inner: PrismaBetterSQLite3) {
    this.adapterName = inner.adapterName;
  }

  async connect(): Promise<SqliteAdapter> {
    return serialized(await this.inner.connect());
  }

  connectToShadowDb(): Promise<SqliteAdapter> {
    return this.inner.connectToShadowDb();
  }
}

function serialized(adapter: SqliteAdapter): SqliteAdapter {
  let tail: Promise<void> = Promise.resolve();
  /** Resolves, in call order, once every earlier holder has released, with this one's release. */
  const acquire = (): Promise<() => void> => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const ready = tail;
    tail = ready.then(() => held);
    return ready.then(() => release);
  };
  const exclusive = async <T>(work: () => Promise<T>): Promise<T> => {
    const release = await acquire();
    try {
      return await work();
    } finally {
      release();
    }
  };
  const bound = (target: object, property: string | symbol): unknown => {
    const value: unknown = Reflect.get(target, property);
    return typeof value === "function"
      ? (value as (...args: unknown[]) => unknown).bind(target)
      : value;
  };
  return new Proxy(adapter, {
    get(target, property) {
      if (property === "queryRaw" || property === "executeRaw" || property === "executeScript") {
        const method = bound(target, property) as (arg: unknown) => Promise<unknown>;
        return (arg: unknown) => exclusive(() => method(arg));
      }
      if (property === "startTransaction") {
        return async (isolationLevel?: Parameters<SqliteAdapter["startTransaction"]>[0]) => {
          const release = await acquire();
          try {
            const transaction = await target.startTransaction(isolationLevel);
            let ended = false;
            const end = () => {
              if (ended) return;
              ended = true;
              release();
            };
            return new Proxy(transaction, {
              get(inner, name) {
                if (name === "commit" || name === "rollback") {
                  const finish = bound(inner, name) as () => Promise<void>;
                  return async () => {
                    try {
                      await finish();
                    } finally {
                      end();
                    }
                  };
                }
                return bound(inner, name);
              },
            });
          } catch (error) {
            release();
            throw error;
          }
        };
      }
      return bound(target, property);
    },
  });
}
