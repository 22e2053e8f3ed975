import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  findLocalTokenByHash,
  migrateDatabase,
  openDatabase,
  type Database,
  type PrismaClient,
} from "../src/index.js";

// The prepared token lookup reads what Prisma's findUnique reads, dates included (rows written by
// Prisma, and rows whose dates are SQLite's CURRENT_TIMESTAMP defaults).

let database: Database;
let file: string;

beforeAll(async () => {
  file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-tokens-")), "test.db");
  await migrateDatabase(`file:${file}`);
  database = await openDatabase({ url: `file:${file}` });
});
afterAll(async () => {
  await database.close();
});

const select = {
  id: true,
  userId: true,
  kind: true,
  name: true,
  prefix: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
  revokedAt: true,
  user: { select: { name: true, role: true, createdAt: true, updatedAt: true } },
} as const;

it("finds a token and its user as Prisma does, and nothing for an unknown hash", async () => {
  const user = await database.prisma.localUser.create({
    data: { name: "ada", role: "admin", passwordHash: "x" },
  });
  await database.prisma.localToken.create({
    data: {
      userId: user.id,
      kind: "api",
      name: "ci",
      tokenHash: "hash-1",
      prefix: "rc_ab",
      expiresAt: new Date(Date.now() + 60_000),
      lastUsedAt: new Date(),
    },
  });
  const expected = await database.prisma.localToken.findUnique({
    where: { tokenHash: "hash-1" },
    select,
  });
  expect(expected).not.toBeNull();
  expect(await findLocalTokenByHash(database.prisma, "hash-1")).toEqual(expected);
  expect(await findLocalTokenByHash(database.prisma, "unknown")).toBeNull();
});

it("reads SQLite's own CURRENT_TIMESTAMP defaults as UTC, as Prisma does", async () => {
  const raw = new BetterSqlite3(file);
  try {
    raw.exec(`INSERT INTO "local_users" ("id", "name", "role", "password_hash")
                VALUES ('u-raw', 'raw', 'reader', 'x');
              INSERT INTO "local_tokens" ("id", "user_id", "kind", "token_hash", "prefix", "expires_at")
                VALUES ('t-raw', 'u-raw', 'session', 'hash-raw', 'rs_ab', '2099-01-02 03:04:05');`);
  } finally {
    raw.close();
  }
  const expected = await database.prisma.localToken.findUnique({
    where: { tokenHash: "hash-raw" },
    select,
  });
  expect(expected?.expiresAt.toISOString()).toBe("2099-01-02T03:04:05.000Z");
  expect(await findLocalTokenByHash(database.prisma, "hash-raw")).toEqual(expected);
});

it("reads through Prisma for any other client (a transaction's)", async () => {
  await database.prisma.$transaction(async (tx) => {
    const found = await findLocalTokenByHash(tx as PrismaClient, "hash-1");
    expect(found?.user.name).toBe("ada");
  });
});
