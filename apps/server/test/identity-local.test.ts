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

beforeAll(async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-local-")), "test.db");
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

  it("answers null for garbage and unknown tokens", async () => {
    const authenticator = createLocalAuthenticator(database.prisma, {
      version: database.dataVersion,
    });
    expect(await authenticator.authenticate("")).toBeNull();
    expect(await authenticator.authenticate("gAAAAABkeystone-looking-token")).toBeNull();
    expect(await authenticator.authenticate(`rc_${"x".repeat(43)}`)).toBeNull();
  });
});
