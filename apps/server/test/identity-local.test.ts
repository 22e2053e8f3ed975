import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, issueToken, revokeToken, updateUser } from "@ratecard/accounts";
import { migrateDatabase, openDatabase, type Database } from "@ratecard/db";
import { createLocalAuthenticator } from "../src/identity/local.js";

const PASSWORD = "a long enough password";
const HOUR = 60 * 60 * 1000;
let database: Database;
let file: string;

beforeAll(async () => {
  file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-local-")), "test.db");
  await migrateDatabase(`file:${file}`);
  database = await openDatabase({ url: `file:${file}` });
});
afterAll(async () => {
  await database.close();
});

describe("local authenticator", () => {
  it("turns an admin's token into an identity with admin and reader roles", async () => {
    const { prisma } = database;
    const admin = await createUser(prisma, { name: "ops", role: "admin", password: PASSWORD });
    const { secret, token } = await issueToken(prisma, {
      userId: admin.id,
      kind: "api",
      name: "cli",
      ttlMs: HOUR,
    });
    const authenticator = createLocalAuthenticator(prisma, { version: database.dataVersion });
    expect(authenticator.strategy).toBe("local");
    expect(await authenticator.authenticate(secret)).toEqual({
      strategy: "local",
      userId: admin.id,
      userName: "ops",
      projectId: null,
      projectName: null,
      domainId: null,
      roles: ["admin", "reader"],
      system: null,
      isAdmin: true,
      expiresAt: token.expiresAt,
    });
  });

  it("gives a reader only the reader role, and follows role changes and revocation", async () => {
    const { prisma } = database;
    await createUser(prisma, { name: "keeper", role: "admin", password: PASSWORD });
    const user = await createUser(prisma, { name: "viewer", role: "reader", password: PASSWORD });
    const session = await issueToken(prisma, { userId: user.id, kind: "session", ttlMs: HOUR });
    const authenticator = createLocalAuthenticator(prisma, { version: database.dataVersion });
    expect(await authenticator.authenticate(session.secret)).toMatchObject({
      roles: ["reader"],
      isAdmin: false,
    });
    await updateUser(prisma, user.id, { role: "admin" });
    expect(await authenticator.authenticate(session.secret)).toMatchObject({ isAdmin: true });
    await revokeToken(prisma, session.token.id);
    expect(await authenticator.authenticate(session.secret)).toBeNull();
  });

  it("keeps a verdict across rule writes, and sees account changes made by any connection", async () => {
    const { prisma } = database;
    const user = await createUser(prisma, { name: "scripted", role: "admin", password: PASSWORD });
    const { secret, token } = await issueToken(prisma, {
      userId: user.id,
      kind: "api",
      name: "ci",
      ttlMs: HOUR,
    });
    const authenticator = createLocalAuthenticator(prisma, { version: database.dataVersion });
    expect(await authenticator.authenticate(secret)).toMatchObject({ isAdmin: true });
    // As another process would: a connection of its own, plain SQL.
    const other = await openDatabase({ url: `file:${file}` });
    try {
      await other.prisma.$executeRawUnsafe(
        "INSERT INTO hashmap_services (id, name) VALUES (?, ?)",
        "2b7cbd6e-7f7e-4a8e-9a43-5f3f0b0f6f01",
        "written-elsewhere",
      );
      expect(await authenticator.authenticate(secret)).toMatchObject({ isAdmin: true });
      await other.prisma.$executeRawUnsafe(
        "UPDATE local_users SET role = 'reader' WHERE id = ?",
        user.id,
      );
      expect(await authenticator.authenticate(secret)).toMatchObject({ isAdmin: false });
      await other.prisma.$executeRawUnsafe(
        "UPDATE local_tokens SET revoked_at = ? WHERE id = ?",
        Date.now(),
        token.id,
      );
      expect(await authenticator.authenticate(secret)).toBeNull();
    } finally {
      await other.close();
    }
  });

  it("gives a kept verdict without waiting only at the database version it holds at", async () => {
    const { prisma } = database;
    const user = await createUser(prisma, { name: "kept", role: "admin", password: PASSWORD });
    const { secret, token } = await issueToken(prisma, {
      userId: user.id,
      kind: "api",
      name: "kept",
      ttlMs: HOUR,
    });
    const authenticator = createLocalAuthenticator(prisma, { version: database.dataVersion });
    const now = { dataVersion: database.dataVersion };
    expect(authenticator.kept?.(secret, now)).toBeUndefined();
    expect(await authenticator.authenticate(secret, now)).toMatchObject({ isAdmin: true });
    // The first check wrote the token's last use (a commit): the verdict is confirmed once more at
    // the version that write made, by the accounts' generation alone.
    expect(authenticator.kept?.(secret, now)).toBeUndefined();
    expect(await authenticator.authenticate(secret, now)).toMatchObject({ isAdmin: true });
    expect(authenticator.kept?.(secret, now)).toMatchObject({ userId: user.id, isAdmin: true });
    // Any commit moves the version: the verdict must be asked for again (here it still holds).
    expect(authenticator.kept?.(secret, { dataVersion: () => database.dataVersion() + 1 })).toBe(
      undefined,
    );
    const other = await openDatabase({ url: `file:${file}` });
    try {
      await other.prisma.$executeRawUnsafe(
        "UPDATE local_tokens SET revoked_at = ? WHERE id = ?",
        Date.now(),
        token.id,
      );
    } finally {
      await other.close();
    }
    expect(authenticator.kept?.(secret, now)).toBeUndefined();
    expect(await authenticator.authenticate(secret, now)).toBeNull();
    // A refused token is never kept as an identity.
    expect(authenticator.kept?.(secret, now)).toBeUndefined();
  });

  it("answers null for garbage and unknown tokens", async () => {
    const authenticator = createLocalAuthenticator(database.prisma, {
      version: database.dataVersion,
    });
    expect(await authenticator.authenticate("")).toBeNull();
    expect(await authenticator.authenticate("gAAAAABkeystone-looking-token")).toBeNull();
    expect(await authenticator.authenticate(`rc_${"x".repeat(43)}`)).toBeNull();
  });
});
