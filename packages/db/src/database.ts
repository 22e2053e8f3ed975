import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "./generated/prisma/client.js";

export interface DatabaseOptions {
  /** `file:<path>` (SQLite). Relative paths are resolved against the working directory. */
  url: string;
}

export interface Database {
  prisma: PrismaClient;
  /** The URL actually opened, with an absolute file path. */
  url: string;
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

export function openDatabase(options: DatabaseOptions): Database {
  const url = resolveDatabaseUrl(options.url);
  fs.mkdirSync(path.dirname(url.slice("file:".length)), { recursive: true });
  const prisma = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url }) });
  return {
    prisma,
    url,
    close: () => prisma.$disconnect(),
  };
}
