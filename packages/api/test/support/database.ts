import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrateDatabase, openDatabase, type Database } from "@ratecard/db";
import { appRouter } from "../../src/root.js";
import { createCallerFactory, createContextInner } from "../../src/trpc.js";

/** A migrated SQLite file in a temporary directory, and a caller over the whole router. */
export async function openTestDatabase(): Promise<{
  database: Database;
  caller: ReturnType<typeof createCaller>;
}> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-api-")), "test.db");
  await migrateDatabase(`file:${file}`);
  const database = await openDatabase({ url: `file:${file}` });
  return { database, caller: createCaller(createContextInner({ prisma: database.prisma })) };
}

const createCaller = createCallerFactory(appRouter);
