import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateToken, checkPassword } from "@ratecard/accounts";
import type { Database } from "@ratecard/db";
import { appRouter } from "../src/root.js";
import { createCallerFactory, createContextInner, type Context } from "../src/trpc.js";
import { openTestDatabase } from "./support/database.js";

const createCaller = createCallerFactory(appRouter);
const PASSWORD = "a long enough password";
let database: Database;
let manager: ReturnType<typeof createCaller>;

/** A caller as the edge would build it for a signed-in user. */
function callerFor(user: { id: string; name: string }, canManageAccounts = false) {
  const context: Context = {
    ...createContextInner({
      prisma: database.prisma,
      actor: { userId: user.id, userName: user.name, projectId: null, address: "127.0.0.1" },
    }),
    canManageAccounts,
  };
  return createCaller(context);
}

beforeAll(async () => {
  ({ database } = await openTestDatabase());
  const admin = await createCaller(
    createContextInner({ prisma: database.prisma }),
  ).accounts.users.create({ name: "root", role: "admin", password: PASSWORD });
  manager = callerFor(admin, true);
});
afterAll(async () => {
  await database.close();
});

describe("accounts.users", () => {
  it("creates, lists, updates and deletes users, never showing a password hash", async () => {
    const created = await manager.accounts.users.create({
      name: "reader-one",
      role: "reader",
      password: PASSWORD,
    });
    expect(created).toMatchObject({ name: "reader-one", role: "reader" });
    expect(Object.keys(created).sort()).toEqual(["createdAt", "id", "name", "role", "updatedAt"]);
    expect(created.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);

    const { users } = await manager.accounts.users.list();
    expect(users.map((u) => u.name)).toContain("reader-one");
    expect(JSON.stringify(users)).not.toContain("argon2");

    const promoted = await manager.accounts.users.update({ id: created.id, role: "admin" });
    expect(promoted.role).toBe("admin");
    await manager.accounts.users.update({ id: created.id, password: "changed password!" });
    expect(await checkPassword(database.prisma, "reader-one", "changed password!")).not.toBeNull();

    await manager.accounts.users.delete({ id: created.id });
    expect((await manager.accounts.users.list()).users.map((u) => u.name)).not.toContain(
      "reader-one",
    );
  });

  it("maps refusals to BAD_REQUEST, CONFLICT and NOT_FOUND with the reason", async () => {
    await expect(
      manager.accounts.users.create({ name: "weak", role: "reader", password: "short" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/at least 12/) });
    await expect(
      manager.accounts.users.create({ name: "root", role: "reader", password: PASSWORD }),
    ).rejects.toMatchObject({ code: "CONFLICT", message: 'A user named "root" already exists.' });
    await expect(
      manager.accounts.users.update({ id: "missing", role: "reader" }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      manager.accounts.users.create({ name: "x", role: "owner" as "admin", password: PASSWORD }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("refuses to delete or demote the last admin", async () => {
    const { users } = await manager.accounts.users.list();
    const root = users.find((u) => u.name === "root")!;
    await expect(manager.accounts.users.delete({ id: root.id })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/"root" is the last admin/),
    });
    await expect(
      manager.accounts.users.update({ id: root.id, role: "reader" }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
  });
});

describe("accounts.tokens", () => {
  it("issues a token for the caller, shown once, that authenticates until revoked", async () => {
    const user = await manager.accounts.users.create({
      name: "scripter",
      role: "reader",
      password: PASSWORD,
    });
    const own = callerFor(user);
    const { secret, token } = await own.accounts.tokens.create({
      name: "nightly",
      expiresInDays: 7,
    });
    expect(secret).toMatch(/^rc_/);
    expect(token).toMatchObject({
      userId: user.id,
      userName: "scripter",
      kind: "api",
      name: "nightly",
    });
    expect(Date.parse(token.expiresAt) - Date.parse(token.createdAt)).toBe(7 * 24 * 3600 * 1000);
    expect((await authenticateToken(database.prisma, secret))?.user.id).toBe(user.id);

    const { tokens } = await own.accounts.tokens.list();
    expect(tokens.map((t) => t.id)).toEqual([token.id]);
    expect(JSON.stringify(tokens)).not.toContain(secret.slice(token.prefix.length));

    const revoked = await own.accounts.tokens.revoke({ id: token.id });
    expect(revoked.revokedAt).not.toBeNull();
    expect(await authenticateToken(database.prisma, secret)).toBeNull();
  });

  it("defaults to 90 days and refuses more than a year", async () => {
    const { users } = await manager.accounts.users.list();
    const root = users.find((u) => u.name === "root")!;
    const { token } = await manager.accounts.tokens.create({ name: "default" });
    expect(Date.parse(token.expiresAt) - Date.parse(token.createdAt)).toBe(90 * 24 * 3600 * 1000);
    expect(token.userId).toBe(root.id);
    await expect(
      manager.accounts.tokens.create({ name: "forever", expiresInDays: 366 }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(
      manager.accounts.tokens.create({ name: " ", expiresInDays: 1 }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/needs a name/),
    });
  });

  it("keeps users to their own tokens unless they may manage accounts", async () => {
    const alice = await manager.accounts.users.create({
      name: "alice",
      role: "reader",
      password: PASSWORD,
    });
    const bob = await manager.accounts.users.create({
      name: "bob",
      role: "admin",
      password: PASSWORD,
    });
    const asAlice = callerFor(alice);
    const asBob = callerFor(bob);
    const alices = await asAlice.accounts.tokens.create({ name: "alice's", expiresInDays: 1 });
    await asBob.accounts.tokens.create({ name: "bob's", expiresInDays: 1 });

    // An admin role alone is not the right to manage accounts: the edge's policy decides that.
    expect((await asBob.accounts.tokens.list()).tokens.map((t) => t.name)).toEqual(["bob's"]);
    await expect(asBob.accounts.tokens.list({ userId: alice.id })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(asBob.accounts.tokens.revoke({ id: alices.token.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    expect(await authenticateToken(database.prisma, alices.secret)).not.toBeNull();

    const all = (await manager.accounts.tokens.list()).tokens.map((t) => t.name);
    expect(all).toEqual(expect.arrayContaining(["alice's", "bob's"]));
    expect((await manager.accounts.tokens.list({ userId: alice.id })).tokens).toHaveLength(1);
    await manager.accounts.tokens.revoke({ id: alices.token.id });
    expect(await authenticateToken(database.prisma, alices.secret)).toBeNull();
  });

  it("refuses token operations without a signed-in user", async () => {
    const anonymous = createCaller(createContextInner({ prisma: database.prisma }));
    await expect(anonymous.accounts.tokens.create({ name: "n" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(anonymous.accounts.tokens.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("answers NOT_FOUND when the caller is not a local user (e.g. a Keystone identity)", async () => {
    const stranger = callerFor({ id: "keystone-user-id", name: "demo" });
    await expect(stranger.accounts.tokens.create({ name: "n" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});
