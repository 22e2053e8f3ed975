import { isDeepStrictEqual } from "node:util";
import { openDatabase, redactUrl, type Database } from "./database.js";
import type { PrismaClient } from "./generated/prisma/client.js";
import { migrateDatabase } from "./migrate.js";

// A whole Ratecard database copied to another one, either way between SQLite and PostgreSQL: a
// pilot on the embedded default moves to production, or production is inspected on a laptop. Every
// row keeps its id (and `seq`, the creation order lists follow); the copy is one transaction on the
// target, and is read back and compared with the source, table by table, before it is reported.

/** The copy could not be made, or does not match its source: nothing was committed or it says why. */
export class CopyError extends Error {}

/** The tables a copy carries, parents before children. Version counters are not data. */
const TABLES = [
  { model: "service", name: "services", seq: "hashmap_services" },
  { model: "field", name: "fields", seq: "hashmap_fields" },
  { model: "group", name: "groups", seq: "hashmap_groups" },
  { model: "mapping", name: "mappings", seq: "hashmap_mappings" },
  { model: "threshold", name: "thresholds", seq: "hashmap_thresholds" },
  { model: "script", name: "scripts", seq: "pyscripts_scripts" },
  { model: "ratingModule", name: "rating modules", seq: undefined },
  { model: "localUser", name: "local users", seq: undefined },
  { model: "localToken", name: "local tokens", seq: undefined },
  { model: "auditEvent", name: "audit events", seq: "audit_events" },
] as const;

type Row = Record<string, unknown>;
/** The calls a copy makes on every model (each generated delegate has them). */
interface Delegate {
  findMany(args: { orderBy: Row }): Promise<Row[]>;
  count(): Promise<number>;
  createMany(args: { data: Row[] }): Promise<unknown>;
  upsert(args: { where: Row; create: Row; update: Row }): Promise<unknown>;
}
const delegate = (prisma: PrismaClient | object, model: string) =>
  (prisma as unknown as Record<string, Delegate>)[model]!;

async function readAll(prisma: PrismaClient | object, table: (typeof TABLES)[number]) {
  return delegate(prisma, table.model).findMany({
    orderBy: table.seq ? { seq: "asc" } : { id: "asc" },
  });
}

export interface CopyReport {
  /** Rows copied, by table. */
  rows: Record<string, number>;
}

/**
 * Copies every row of `fromUrl`'s database into `toUrl`'s, which must hold no rating objects and
 * no accounts (its rating modules, seeded by the migrations, take the source's settings). Both are
 * migrated first, as a server starting on them would be.
 */
export async function copyDatabase(fromUrl: string, toUrl: string): Promise<CopyReport> {
  if (fromUrl === toUrl) throw new CopyError("the source and the target are the same database");
  await migrateDatabase(fromUrl);
  await migrateDatabase(toUrl);
  const source = await openDatabase({ url: fromUrl });
  let target: Database | undefined;
  try {
    target = await openDatabase({ url: toUrl });
    for (const table of TABLES) {
      if (table.model === "ratingModule") continue;
      const count = await delegate(target.prisma, table.model).count();
      if (count > 0)
        throw new CopyError(
          `${redactUrl(toUrl)} already holds ${count} ${table.name}: copy into an empty database`,
        );
    }
    const rows = new Map<string, Row[]>();
    for (const table of TABLES) rows.set(table.model, await readAll(source.prisma, table));

    await target.prisma.$transaction(
      async (tx) => {
        for (const table of TABLES) {
          const data = rows.get(table.model)!;
          if (table.model === "ratingModule") {
            for (const { id, ...settings } of data)
              await delegate(tx, table.model).upsert({
                where: { id },
                create: { id, ...settings },
                update: settings,
              });
          } else if (data.length > 0) {
            await delegate(tx, table.model).createMany({ data });
          }
        }
        if (target!.provider === "postgresql") {
          // Rows came with their `seq`: the next one created must follow the largest.
          for (const table of TABLES) {
            if (!table.seq) continue;
            await tx.$executeRawUnsafe(
              `SELECT setval(pg_get_serial_sequence('"${table.seq}"', 'seq'), ` +
                `COALESCE((SELECT MAX("seq") FROM "${table.seq}"), 0) + 1, false)`,
            );
          }
        }
      },
      { maxWait: 10_000, timeout: 10 * 60_000 },
    );

    const report: CopyReport = { rows: {} };
    for (const table of TABLES) {
      const copied = await readAll(target.prisma, table);
      const original = rows.get(table.model)!;
      if (!isDeepStrictEqual(copied, original))
        throw new CopyError(
          `the copied ${table.name} differ from the source's (${copied.length} rows read back, ` +
            `${original.length} in the source)`,
        );
      report.rows[table.name] = copied.length;
    }
    return report;
  } finally {
    await Promise.all([source.close(), target?.close()]);
  }
}
