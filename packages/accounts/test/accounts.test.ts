import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { migrateDatabase, openDatabase, type Database, type PrismaClient } from "@ratecard/db";
import {
  AccountError,
  authenticateToken,
  type AccountsHook,
  checkPassword,
  createUser,
  deleteExpiredTokens,
  deleteUser,
  ensureFirstAdmin,
  hashPassword,
  issueToken,
  listTokens,
  listUsers,
  revokeToken,
  updateUser,
  verifyPassword,
  DEFAULT_API_TOKEN_TTL_MS,
  LAST_USED_RESOLUTION_MS,
  MAX_TOKEN_TTL_MS,
} from "../src/index.js";

const PASSWORD = "correct horse battery";
const HOUR = 60 * 60 * 1000;
let database: Database;
let prisma: PrismaClient;
let directory: string;

/**
 * A temporary SQLite file, or with RATECARD_TEST_DATABASE=postgresql a new database on the
 * PostgreSQL that RATECARD_TEST_POSTGRES_URL names (`scripts/postgres-for-tests.sh run pnpm
 * --filter @ratecard/accounts test`); created with psql, so this package needs no driver of its own.
 */
function newDatabaseUrl(): string {
  if (process.env.RATECARD_TEST_DATABASE !== "postgresql") return `file:${directory}/ratecard.db`;
  const adminUrl = process.env.RATECARD_TEST_POSTGRES_URL;
  if (!adminUrl)
    throw new Error("RATECARD_TEST_DATABASE=postgresql needs RATECARD_TEST_POSTGRES_URL");
  const name = `ratecard_accounts_${randomBytes(6).toString("hex")}`;
  execFileSync("psql", [
    "-X",
    "-q",
    "-v",
    "ON_ERROR_STOP=1",
    "-d",
    adminUrl,
    "-c",
    `CREATE DATABASE "${name}"`,
  ]);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-accounts-"));
  const url = newDatabaseUrl();
  await migrateDatabase(url);
  database = await openDatabase({ url });
  prisma = database.prisma;
});
afterAll(async () => {
  await database.close();
});
beforeEach(async () => {
  await prisma.localUser.deleteMany();
});

async function expectAccountError(promise: Promise<unknown>, kind: string, message: RegExp) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AccountError);
  expect(error).toMatchObject({ kind });
  expect((error as Error).message).toMatch(message);
}

describe("passwords", () => {
  it("hashes with argon2id at OWASP's parameters, salted, and verifies", async () => {
    const first = await hashPassword(PASSWORD);
    const second = await hashPassword(PASSWORD);
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(second).not.toBe(first);
    expect(await verifyPassword(first, PASSWORD)).toBe(true);
    expect(await verifyPassword(first, `${PASSWORD}!`)).toBe(false);
    expect(await verifyPassword("not a hash", PASSWORD)).toBe(false);
  });

  it("refuses passwords shorter than 12 characters, counting characters not bytes", async () => {
    await expectAccountError(
      createUser(prisma, { name: "short", role: "reader", password: "elevenchars" }),
      "invalid",
      /at least 12 characters/,
    );
    // 12 characters, 24 bytes in UTF-8.
    await createUser(prisma, { name: "accents", role: "reader", password: "éééééééééééé" });
    await expectAccountError(
      createUser(prisma, { name: "emoji", role: "reader", password: "🔑".repeat(11) }),
      "invalid",
      /at least 12/,
    );
  });

  it("checks a name and password, and answers null for a wrong password or an unknown name", async () => {
    const alice = await createUser(prisma, { name: "alice", role: "reader", password: PASSWORD });
    expect(await checkPassword(prisma, "alice", PASSWORD)).toEqual(alice);
    expect(await checkPassword(prisma, "alice", "wrong password!")).toBeNull();
    expect(await checkPassword(prisma, "nobody", PASSWORD)).toBeNull();
    expect(await checkPassword(prisma, "alice", "x".repeat(2000))).toBeNull();
  });

  it("spends as long on an unknown name as on a known one (a dummy hash is verified)", async () => {
    await createUser(prisma, { name: "timed", role: "reader", password: PASSWORD });
    await checkPassword(prisma, "nobody", PASSWORD); // builds the dummy hash once
    const median = async (name: string) => {
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const start = process.hrtime.bigint();
        await checkPassword(prisma, name, "a wrong password");
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      return times.sort((a, b) => a - b)[3]!;
    };
    const known = await median("timed");
    const unknown = await median("nobody");
    // Without the dummy hash an unknown name answers in well under a millisecond, a known one
    // after an argon2 verification (tens of milliseconds).
    expect(unknown).toBeGreaterThan(known * 0.5);
    expect(unknown).toBeLessThan(known * 2);
  });

  it("replaces a hash made with older parameters on a successful check", async () => {
    const user = await createUser(prisma, { name: "legacy", role: "reader", password: PASSWORD });
    const { hash } = await import("@node-rs/argon2");
    const weak = await hash(PASSWORD, { memoryCost: 1024, timeCost: 1 });
    await prisma.localUser.update({ where: { id: user.id }, data: { passwordHash: weak } });
    expect(await checkPassword(prisma, "legacy", PASSWORD)).toMatchObject({ id: user.id });
    const row = await prisma.localUser.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });
});

describe("users", () => {
  it("creates, lists, updates and deletes users without ever returning a hash", async () => {
    const bob = await createUser(prisma, { name: "bob", role: "reader", password: PASSWORD });
    const ann = await createUser(prisma, { name: "ann", role: "admin", password: PASSWORD });
    expect(Object.keys(bob).sort()).toEqual(["createdAt", "id", "name", "role", "updatedAt"]);
    expect((await listUsers(prisma)).map((u) => u.name)).toEqual(["ann", "bob"]);

    const promoted = await updateUser(prisma, bob.id, { role: "admin" });
    expect(promoted.role).toBe("admin");
    await updateUser(prisma, bob.id, { password: "a brand new password" });
    expect(await checkPassword(prisma, "bob", PASSWORD)).toBeNull();
    expect(await checkPassword(prisma, "bob", "a brand new password")).not.toBeNull();

    await deleteUser(prisma, ann.id);
    expect((await listUsers(prisma)).map((u) => u.name)).toEqual(["bob"]);
    await expectAccountError(deleteUser(prisma, ann.id), "not_found", /No user/);
    await expectAccountError(
      updateUser(prisma, ann.id, { role: "reader" }),
      "not_found",
      /No user/,
    );
  });

  it("refuses a duplicate name, a bad name and an unknown role", async () => {
    await createUser(prisma, { name: "carol", role: "reader", password: PASSWORD });
    await expectAccountError(
      createUser(prisma, { name: "carol", role: "admin", password: PASSWORD }),
      "conflict",
      /"carol" already exists/,
    );
    await expectAccountError(
      createUser(prisma, { name: "has space", role: "reader", password: PASSWORD }),
      "invalid",
      /user name/,
    );
    await expectAccountError(
      createUser(prisma, { name: "x", role: "owner" as "admin", password: PASSWORD }),
      "invalid",
      /"admin" or "reader"/,
    );
  });

  it("never deletes or demotes the last admin", async () => {
    const root = await createUser(prisma, { name: "root", role: "admin", password: PASSWORD });
    const reader = await createUser(prisma, { name: "r", role: "reader", password: PASSWORD });
    await expectAccountError(deleteUser(prisma, root.id), "conflict", /"root" is the last admin/);
    await expectAccountError(
      updateUser(prisma, root.id, { role: "reader" }),
      "conflict",
      /last admin/,
    );
    await deleteUser(prisma, reader.id);

    // Two instances (two connections) demoting and deleting the two admins at once: one admin
    // stays, and the refused call is a clear conflict, not a lock timeout.
    const second = await openDatabase({ url: database.url });
    try {
      for (let round = 0; round < 3; round++) {
        await prisma.localUser.deleteMany({ where: { NOT: { id: root.id } } });
        await updateUser(prisma, root.id, { role: "admin" });
        const other = await createUser(prisma, {
          name: "other",
          role: "admin",
          password: PASSWORD,
        });
        const results = await Promise.allSettled([
          updateUser(prisma, root.id, { role: "reader" }),
          round === 0
            ? updateUser(second.prisma, other.id, { role: "reader" })
            : deleteUser(second.prisma, other.id),
        ]);
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        const refused = results.find((r) => r.status === "rejected");
        expect(refused?.reason).toMatchObject({ kind: "conflict" });
        expect(await prisma.localUser.count({ where: { role: "admin" } })).toBe(1);
      }
    } finally {
      await second.close();
    }
    // The guarded demotion is raw SQL: its updated_at must read back as Prisma writes dates.
    const late = await createUser(prisma, { name: "late", role: "admin", password: PASSWORD });
    const demoted = await updateUser(prisma, late.id, { role: "reader" });
    expect(demoted.role).toBe("reader");
    expect(demoted.updatedAt.getTime()).toBeGreaterThanOrEqual(late.updatedAt.getTime());
  });

  it("the database itself refuses a role outside admin and reader", async () => {
    await expect(
      prisma.localUser.create({ data: { name: "z", role: "root", passwordHash: "x" } }),
    ).rejects.toThrow();
  });
});

describe("tokens", () => {
  it("issues a token shown once, stores only its hash, and authenticates it", async () => {
    const user = await createUser(prisma, { name: "dave", role: "admin", password: PASSWORD });
    const { secret, token } = await issueToken(prisma, {
      userId: user.id,
      kind: "api",
      name: "ci",
      ttlMs: DEFAULT_API_TOKEN_TTL_MS,
    });
    expect(secret).toMatch(/^rc_[A-Za-z0-9_-]{43}$/);
    expect(token).toMatchObject({ kind: "api", name: "ci", userName: "dave", revokedAt: null });
    expect(secret.startsWith(token.prefix)).toBe(true);
    expect(token.prefix).toHaveLength(9);
    expect(token.expiresAt.getTime() - token.createdAt.getTime()).toBe(DEFAULT_API_TOKEN_TTL_MS);
    expect(JSON.stringify(token)).not.toContain(secret.slice(token.prefix.length));

    const row = await prisma.localToken.findUniqueOrThrow({ where: { id: token.id } });
    expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(secret.slice(token.prefix.length));

    const found = await authenticateToken(prisma, secret);
    expect(found?.user).toMatchObject({ id: user.id, name: "dave", role: "admin" });
    expect(found?.token.id).toBe(token.id);

    const session = await issueToken(prisma, { userId: user.id, kind: "session", ttlMs: HOUR });
    expect(session.secret).toMatch(/^rcs_[A-Za-z0-9_-]{43}$/);
    expect((await authenticateToken(prisma, session.secret))?.token.kind).toBe("session");
  });

  it("answers null for malformed, unknown, expired and revoked secrets", async () => {
    const user = await createUser(prisma, { name: "erin", role: "reader", password: PASSWORD });
    const { secret, token } = await issueToken(prisma, {
      userId: user.id,
      kind: "api",
      name: "script",
      ttlMs: HOUR,
    });
    for (const bad of [
      "",
      "garbage",
      `${secret}x`,
      secret.slice(0, -1),
      `rcs_${secret.slice(3)}`,
    ]) {
      expect(await authenticateToken(prisma, bad)).toBeNull();
    }
    expect(await authenticateToken(prisma, `rc_${"A".repeat(43)}`)).toBeNull();

    await prisma.localToken.update({
      where: { id: token.id },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    expect(await authenticateToken(prisma, secret)).toBeNull();
    await prisma.localToken.update({
      where: { id: token.id },
      data: { expiresAt: new Date(Date.now() + HOUR) },
    });
    expect(await authenticateToken(prisma, secret)).not.toBeNull();

    const revoked = await revokeToken(prisma, token.id);
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    expect(await authenticateToken(prisma, secret)).toBeNull();
    // Idempotent: the first revocation time stays.
    expect((await revokeToken(prisma, token.id)).revokedAt).toEqual(revoked.revokedAt);
  });

  it("writes lastUsedAt at most once a minute", async () => {
    const user = await createUser(prisma, { name: "fay", role: "reader", password: PASSWORD });
    const { secret, token } = await issueToken(prisma, {
      userId: user.id,
      kind: "api",
      name: "poller",
      ttlMs: HOUR,
    });
    const lastUsed = async () =>
      (await prisma.localToken.findUniqueOrThrow({ where: { id: token.id } })).lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await authenticateToken(prisma, secret);
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    await Promise.all([1, 2, 3].map(() => authenticateToken(prisma, secret)));
    expect(await lastUsed()).toEqual(first);

    const old = new Date(Date.now() - LAST_USED_RESOLUTION_MS - 1000);
    await prisma.localToken.update({ where: { id: token.id }, data: { lastUsedAt: old } });
    await authenticateToken(prisma, secret);
    expect((await lastUsed())!.getTime()).toBeGreaterThan(old.getTime());
  });

  it("applies a role change and a new password to tokens already issued", async () => {
    await createUser(prisma, { name: "keep", role: "admin", password: PASSWORD });
    const user = await createUser(prisma, { name: "gus", role: "admin", password: PASSWORD });
    const api = await issueToken(prisma, { userId: user.id, kind: "api", name: "a", ttlMs: HOUR });
    const session = await issueToken(prisma, { userId: user.id, kind: "session", ttlMs: HOUR });
    await updateUser(prisma, user.id, { role: "reader" });
    expect((await authenticateToken(prisma, api.secret))?.user.role).toBe("reader");
    // A new password ends console sessions; API tokens are credentials of their own.
    await updateUser(prisma, user.id, { password: "another long password" });
    expect(await authenticateToken(prisma, session.secret)).toBeNull();
    expect(await authenticateToken(prisma, api.secret)).not.toBeNull();
  });

  it("validates kind, name and lifetime, and the user", async () => {
    const user = await createUser(prisma, { name: "hal", role: "reader", password: PASSWORD });
    const issue = (input: Partial<Parameters<typeof issueToken>[1]>) =>
      issueToken(prisma, { userId: user.id, kind: "api", name: "n", ttlMs: HOUR, ...input });
    await expectAccountError(issue({ name: "  " }), "invalid", /needs a name/);
    await expectAccountError(issue({ name: "n".repeat(101) }), "invalid", /at most 100/);
    await expectAccountError(issue({ ttlMs: 0 }), "invalid", /one year/);
    await expectAccountError(issue({ ttlMs: MAX_TOKEN_TTL_MS + 1 }), "invalid", /one year/);
    await expectAccountError(issue({ kind: "root" as "api" }), "invalid", /"api" or "session"/);
    await expectAccountError(issue({ userId: "no-such-user" }), "not_found", /No user/);
    await issue({ ttlMs: MAX_TOKEN_TTL_MS });
  });

  it("lists tokens without secrets or hashes, per user, and revokes only the owner's", async () => {
    const ivy = await createUser(prisma, { name: "ivy", role: "reader", password: PASSWORD });
    const jon = await createUser(prisma, { name: "jon", role: "reader", password: PASSWORD });
    const a = await issueToken(prisma, { userId: ivy.id, kind: "api", name: "a", ttlMs: HOUR });
    const b = await issueToken(prisma, { userId: jon.id, kind: "api", name: "b", ttlMs: HOUR });
    await issueToken(prisma, { userId: jon.id, kind: "session", ttlMs: HOUR });

    const all = await listTokens(prisma);
    expect(all).toHaveLength(3);
    for (const token of all) expect(Object.keys(token)).not.toContain("tokenHash");
    expect((await listTokens(prisma, { userId: ivy.id })).map((t) => t.name)).toEqual(["a"]);
    expect(await listTokens(prisma, { userId: jon.id, kind: "api" })).toHaveLength(1);

    await expectAccountError(
      revokeToken(prisma, b.token.id, { userId: ivy.id }),
      "not_found",
      /No token/,
    );
    expect(await authenticateToken(prisma, b.secret)).not.toBeNull();
    await revokeToken(prisma, a.token.id, { userId: ivy.id });
    expect(await authenticateToken(prisma, a.secret)).toBeNull();

    await deleteUser(prisma, jon.id);
    expect(await listTokens(prisma, { userId: jon.id })).toEqual([]);
  });

  it("deletes expired tokens", async () => {
    const user = await createUser(prisma, { name: "kim", role: "reader", password: PASSWORD });
    const live = await issueToken(prisma, { userId: user.id, kind: "session", ttlMs: HOUR });
    const dead = await issueToken(prisma, { userId: user.id, kind: "session", ttlMs: HOUR });
    await prisma.localToken.update({
      where: { id: dead.token.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(await deleteExpiredTokens(prisma)).toBe(1);
    expect((await listTokens(prisma)).map((t) => t.id)).toEqual([live.token.id]);
  });
});

describe("ensureFirstAdmin", () => {
  it("creates admin with the given password, once", async () => {
    const dataDir = fs.mkdtempSync(path.join(directory, "given-"));
    expect(await ensureFirstAdmin(prisma, { password: "the operator's choice", dataDir })).toEqual({
      created: true,
    });
    expect(await checkPassword(prisma, "admin", "the operator's choice")).toMatchObject({
      role: "admin",
    });
    expect(fs.readdirSync(dataDir)).toEqual([]);
    expect(await ensureFirstAdmin(prisma, { password: "another password!", dataDir })).toEqual({
      created: false,
    });
    await expectAccountError(
      (async () => {
        await prisma.localUser.deleteMany();
        return ensureFirstAdmin(prisma, { password: "short", dataDir });
      })(),
      "invalid",
      /at least 12/,
    );
  });

  it("writes a random password once to a 0600 file, and never again", async () => {
    const dataDir = path.join(directory, "generated", "data");
    const result = await ensureFirstAdmin(prisma, { dataDir });
    const file = path.join(dataDir, "initial-admin-password");
    expect(result).toEqual({ created: true, passwordFile: file });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dataDir)).toEqual(["initial-admin-password"]);
    const password = fs.readFileSync(file, "utf8").trim();
    expect(password.length).toBeGreaterThanOrEqual(12);
    expect(await checkPassword(prisma, "admin", password)).toMatchObject({ role: "admin" });

    expect(await ensureFirstAdmin(prisma, { dataDir })).toEqual({ created: false });
    expect(fs.readFileSync(file, "utf8").trim()).toBe(password);

    // A database emptied under a leftover file: refuse rather than overwrite or lose a password.
    await prisma.localUser.deleteMany();
    await expectAccountError(ensureFirstAdmin(prisma, { dataDir }), "conflict", /Remove it/);
    expect(fs.readFileSync(file, "utf8").trim()).toBe(password);
  });

  it("creates one admin and one file when two instances start together", async () => {
    const dataDir = path.join(directory, "racing");
    const second = await openDatabase({ url: database.url });
    try {
      const results = await Promise.all([
        ensureFirstAdmin(prisma, { dataDir }),
        ensureFirstAdmin(second.prisma, { dataDir }),
        ensureFirstAdmin(prisma, { dataDir }),
      ]);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(await prisma.localUser.count()).toBe(1);
      expect(fs.readdirSync(dataDir)).toEqual(["initial-admin-password"]);
      const password = fs.readFileSync(path.join(dataDir, "initial-admin-password"), "utf8");
      expect(await checkPassword(prisma, "admin", password.trim())).not.toBeNull();
    } finally {
      await second.close();
    }
  });
});

describe("change hooks", () => {
  /** Records every change, and writes a row with the hook's transaction as an audit event would. */
  function recorder() {
    const changes: unknown[] = [];
    const hook = async (tx: Parameters<AccountsHook<unknown>>[0], change: unknown) => {
      changes.push(change);
      await tx.localUser.updateMany({ where: { name: "witness" }, data: { role: "admin" } });
    };
    return { changes, hook };
  }

  it("reports each write inside its transaction, never with a password or hash", async () => {
    const { changes, hook } = recorder();
    await createUser(prisma, { name: "keeper", role: "admin", password: PASSWORD });
    const user = await createUser(prisma, { name: "hooked", role: "reader", password: PASSWORD });
    await issueToken(prisma, { userId: user.id, kind: "session", ttlMs: HOUR });
    const made = await createUser(
      prisma,
      { name: "made", role: "admin", password: PASSWORD },
      hook,
    );
    const promoted = await updateUser(prisma, user.id, { role: "admin" }, hook);
    const demoted = await updateUser(prisma, user.id, { role: "reader" }, hook);
    const rekeyed = await updateUser(prisma, user.id, { password: "a brand new password" }, hook);
    const { token } = await issueToken(
      prisma,
      { userId: user.id, kind: "api", name: "ci", ttlMs: HOUR },
      hook,
    );
    const revoked = await revokeToken(prisma, token.id, {}, hook);
    await revokeToken(prisma, token.id, {}, hook); // already revoked: no change, no report
    await deleteUser(prisma, user.id, hook);
    expect(changes).toEqual([
      { operation: "create", before: null, after: made },
      {
        operation: "update",
        before: expect.objectContaining({ id: user.id, role: "reader" }),
        after: promoted,
        passwordChanged: false,
        sessionsRevoked: 0,
      },
      {
        operation: "update",
        before: promoted,
        after: demoted,
        passwordChanged: false,
        sessionsRevoked: 0,
      },
      {
        operation: "update",
        before: demoted,
        after: rekeyed,
        passwordChanged: true,
        sessionsRevoked: 1,
      },
      { operation: "create", before: null, after: token },
      { operation: "update", before: { ...revoked, revokedAt: null }, after: revoked },
      {
        operation: "delete",
        before: rekeyed,
        after: null,
        tokensDeleted: [
          expect.objectContaining({ kind: "session" }),
          expect.objectContaining({ id: token.id }),
        ],
      },
    ]);
    expect(JSON.stringify(changes)).not.toMatch(/argon2|hash|rcs?_[A-Za-z0-9_-]{43}/i);
  });

  it("rolls the write back when the hook fails, and calls no hook for a refusal", async () => {
    const failing = () => Promise.reject(new Error("hook failed"));
    const root = await createUser(prisma, { name: "root", role: "admin", password: PASSWORD });
    const user = await createUser(prisma, { name: "u", role: "reader", password: PASSWORD });
    await expect(
      createUser(prisma, { name: "never", role: "reader", password: PASSWORD }, failing),
    ).rejects.toThrow("hook failed");
    await expect(updateUser(prisma, user.id, { role: "admin" }, failing)).rejects.toThrow();
    await expect(deleteUser(prisma, user.id, failing)).rejects.toThrow();
    await expect(
      issueToken(prisma, { userId: user.id, kind: "api", name: "x", ttlMs: HOUR }, failing),
    ).rejects.toThrow();
    expect((await listUsers(prisma)).map((u) => [u.name, u.role])).toEqual([
      ["root", "admin"],
      ["u", "reader"],
    ]);
    expect(await listTokens(prisma)).toEqual([]);

    const { changes, hook } = recorder();
    const unknown = "00000000-0000-4000-8000-000000000000";
    await expectAccountError(
      createUser(prisma, { name: "u", role: "reader", password: PASSWORD }, hook),
      "conflict",
      /already exists/,
    );
    await expectAccountError(
      updateUser(prisma, unknown, { role: "admin" }, hook),
      "not_found",
      /No user/,
    );
    await expectAccountError(deleteUser(prisma, unknown, hook), "not_found", /No user/);
    await expectAccountError(
      updateUser(prisma, root.id, { role: "reader" }, hook),
      "conflict",
      /last admin/,
    );
    await expectAccountError(deleteUser(prisma, root.id, hook), "conflict", /last admin/);
    await expectAccountError(
      issueToken(prisma, { userId: unknown, kind: "api", name: "x", ttlMs: HOUR }, hook),
      "not_found",
      /No user/,
    );
    await expectAccountError(revokeToken(prisma, unknown, {}, hook), "not_found", /No token/);
    expect(changes).toEqual([]);
  });

  it("keeps one admin when hooked demotions and deletions race", async () => {
    const { hook } = recorder();
    for (let round = 0; round < 3; round++) {
      await prisma.localUser.deleteMany();
      const a = await createUser(prisma, { name: "a", role: "admin", password: PASSWORD });
      const b = await createUser(prisma, { name: "b", role: "admin", password: PASSWORD });
      const results = await Promise.allSettled([
        updateUser(prisma, a.id, { role: "reader" }, hook),
        round === 0
          ? updateUser(prisma, b.id, { role: "reader" }, hook)
          : deleteUser(prisma, b.id, hook),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(results.find((r) => r.status === "rejected")?.reason).toMatchObject({
        kind: "conflict",
      });
      expect(await prisma.localUser.count({ where: { role: "admin" } })).toBe(1);
    }
  });
});
