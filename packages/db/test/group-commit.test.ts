import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  insertMapping,
  insertThreshold,
  isForeignKeyViolation,
  isUniqueViolation,
  migrateDatabase,
  openDatabase,
  type Database,
  type NewAuditEvent,
} from "../src/index.js";
import { flatFieldMapping, seedFlavorField } from "./support/rules.js";

// Group commit (PreparedConnection.write): the rule creates given in one event-loop turn share
// one SQLite transaction, each in a savepoint of its own, and none settles before that
// transaction's COMMIT returned.

const COST = "1.5000000000000000000000000000";
let database: Database;
let file: string;
let reader: BetterSqlite3.Database;
let serviceId: string;
let fieldId: string;

beforeAll(async () => {
  file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-group-commit-")), "test.db");
  await migrateDatabase(`file:${file}`);
  database = await openDatabase({ url: `file:${file}` });
  ({ serviceId, fieldId } = await seedFlavorField(database.prisma));
  reader = new BetterSqlite3(file, { readonly: true });
});
afterAll(async () => {
  reader.close();
  await database.close();
});

const mapping = (value: string) => flatFieldMapping(fieldId, value, COST);

const event = (resourceId: string): NewAuditEvent => ({
  at: new Date(),
  userId: null,
  userName: null,
  projectId: null,
  address: null,
  requestId: null,
  operation: "create",
  resourceType: "mapping",
  resourceId,
  revision: 1,
  before: null,
  after: null,
  cascade: null,
});

/** What another connection sees committed: the mappings with these values, and their events. */
function committed(values: string[]) {
  const rows = reader
    .prepare(
      `SELECT "id", "value", "seq" FROM "hashmap_mappings" WHERE "value" IN (${values.map(() => "?").join(",")}) ORDER BY "seq"`,
    )
    .all(...values) as { id: string; value: string; seq: number }[];
  const events = rows.map(
    (row) =>
      reader
        .prepare(`SELECT COUNT(*) FROM "audit_events" WHERE "resource_id" = ?`)
        .pluck()
        .get(row.id) as number,
  );
  return { values: rows.map((row) => row.value), events };
}

/**
 * Commits in the WAL so far: its frames that end a transaction (a non-zero "database size" in the
 * frame header), from the header's generation (salts) on. Checkpoints that restart the WAL happen
 * past 1,000 pages; these tests write far fewer.
 */
function walCommits(): number {
  const wal = fs.readFileSync(`${file}-wal`);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salts = wal.subarray(16, 24);
  let commits = 0;
  for (let frame = 32; frame + 24 + pageSize <= wal.length; frame += 24 + pageSize) {
    if (!wal.subarray(frame + 8, frame + 16).equals(salts)) break;
    if (wal.readUInt32BE(frame + 4) !== 0) commits++;
  }
  return commits;
}

describe("rule creates of one turn", () => {
  it("share one commit (one fsync); creates awaited one by one commit one each", async () => {
    const before = walCommits();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        insertMapping(database.prisma, mapping(`together-${i}`), (row) => event(row.id)),
      ),
    );
    expect(walCommits() - before).toBe(1);
    for (let i = 0; i < 3; i++)
      await insertMapping(database.prisma, mapping(`alone-${i}`), (row) => event(row.id));
    expect(walCommits() - before).toBe(4);
  });

  it("commit together; a failing one is rolled back alone and gets its own error", async () => {
    await insertMapping(database.prisma, mapping("taken"));
    const broken = new Error("the audit event could not be made");
    const outcomes = await Promise.allSettled([
      insertMapping(database.prisma, mapping("a"), (row) => event(row.id)),
      insertMapping(database.prisma, mapping("taken"), (row) => event(row.id)),
      insertMapping(database.prisma, mapping("b"), (row) => event(row.id)),
      insertMapping(database.prisma, { ...mapping("unchecked"), cost: "1" }, (row) =>
        event(row.id),
      ),
      insertMapping(database.prisma, { ...mapping("orphan"), fieldId: crypto.randomUUID() }),
      insertMapping(database.prisma, mapping("b"), (row) => event(row.id)),
      insertMapping(database.prisma, mapping("no-event"), () => {
        throw broken;
      }),
      insertThreshold(database.prisma, {
        serviceId,
        fieldId: null,
        level: "10.00000000",
        type: "rate",
        cost: COST,
        groupId: null,
        tenantId: null,
      }),
      insertMapping(database.prisma, mapping("c"), (row) => event(row.id)),
    ]);
    const [a, taken, b, unchecked, orphan, sameTurnDuplicate, noEvent, threshold, c] = outcomes;
    for (const fulfilled of [a, b, threshold, c]) expect(fulfilled?.status).toBe("fulfilled");
    const reason = (outcome: PromiseSettledResult<unknown> | undefined) =>
      outcome?.status === "rejected" ? (outcome.reason as unknown) : undefined;
    expect(isUniqueViolation(reason(taken))).toBe(true);
    expect(isUniqueViolation(reason(sameTurnDuplicate))).toBe(true);
    expect(String(reason(unchecked))).toMatch(/CHECK constraint failed/);
    expect(isForeignKeyViolation(reason(orphan))).toBe(true);
    expect(reason(noEvent)).toBe(broken);
    expect(committed(["a", "taken", "b", "unchecked", "orphan", "no-event", "c"])).toEqual({
      values: ["taken", "a", "b", "c"],
      events: [0, 1, 1, 1],
    });
  });

  it("settle only once every one of them is committed, seen from another connection", async () => {
    const values = Array.from({ length: 20 }, (_, i) => `visible-${i}`);
    const seenAtSettlement = await Promise.all(
      values.map((value) =>
        insertMapping(database.prisma, mapping(value)).then(() => committed(values).values.length),
      ),
    );
    expect(seenAtSettlement).toEqual(values.map(() => values.length));
  });

  it("wait together for another connection's lock; later ones commit after them", async () => {
    const other = new BetterSqlite3(file);
    try {
      other.exec("BEGIN IMMEDIATE");
      const first = insertMapping(database.prisma, mapping("held-1"));
      const second = insertMapping(database.prisma, mapping("held-2"));
      await sleep(20);
      const later = insertMapping(database.prisma, mapping("held-3"));
      await sleep(20);
      expect(committed(["held-1", "held-2", "held-3"]).values).toEqual([]);
      other.exec("ROLLBACK");
      const [one, two, three] = await Promise.all([first, second, later]);
      expect([one.value, two.value, three.value]).toEqual(["held-1", "held-2", "held-3"]);
      expect(one.seq).toBeLessThan(two.seq);
      expect(two.seq).toBeLessThan(three.seq);
    } finally {
      other.close();
    }
  });
});
