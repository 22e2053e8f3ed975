import { clientProvider, isUniqueViolation, type Prisma, type PrismaClient } from "@ratecard/db";
import { AccountError } from "./errors.js";
import {
  assertPasswordPolicy,
  dummyPasswordHash,
  hashPassword,
  MAX_PASSWORD_LENGTH,
  needsRehash,
  verifyPassword,
} from "./passwords.js";
import { readTokens, type TokenSummary } from "./tokens.js";

export const localRoles = ["admin", "reader"] as const;
export type LocalRole = (typeof localRoles)[number];

/** A local user as callers see one: never with its password hash. */
export interface LocalUser {
  id: string;
  name: string;
  role: LocalRole;
  createdAt: Date;
  updatedAt: Date;
}

const userSelect = {
  id: true,
  name: true,
  role: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** The database's CHECK keeps `role` to these two; the cast only narrows the column's type. */
function toLocalUser(row: {
  id: string;
  name: string;
  role: string;
  createdAt: Date;
  updatedAt: Date;
}): LocalUser {
  return { ...row, role: row.role as LocalRole };
}

/**
 * Called with a write's transaction and what it changed, inside that transaction and after the
 * change: whatever it writes with `tx` (an audit event) commits or rolls back with the change, and
 * an error it throws rolls the change back. Never given a password or its hash.
 */
export type AccountsHook<Change> = (tx: Prisma.TransactionClient, change: Change) => Promise<void>;

export type UserChange =
  | { operation: "create"; before: null; after: LocalUser }
  | {
      operation: "update";
      before: LocalUser;
      after: LocalUser;
      /** Whether the password was set (the hash is never given). */
      passwordChanged: boolean;
      /** Console sessions revoked by the new password. */
      sessionsRevoked: number;
    }
  | { operation: "delete"; before: LocalUser; after: null; tokensDeleted: TokenSummary[] };

const userNamePattern = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

function assertUserName(name: string): void {
  if (!userNamePattern.test(name)) {
    throw new AccountError(
      "invalid",
      'A user name is 1 to 64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit.',
    );
  }
}

function assertRole(role: string): asserts role is LocalRole {
  if (!(localRoles as readonly string[]).includes(role)) {
    throw new AccountError("invalid", `A role is "admin" or "reader", not "${role}".`);
  }
}

const noSuchUser = (id: string) => new AccountError("not_found", `No user with id ${id}.`);
const lastAdmin = (name: string) =>
  new AccountError(
    "conflict",
    `"${name}" is the last admin: make another user admin first, or nobody could manage accounts.`,
  );

export async function createUser(
  prisma: PrismaClient,
  input: { name: string; role: LocalRole; password: string },
  onChange?: AccountsHook<UserChange>,
): Promise<LocalUser> {
  assertUserName(input.name);
  assertRole(input.role);
  assertPasswordPolicy(input.password);
  const passwordHash = await hashPassword(input.password);
  const create = async (tx: Prisma.TransactionClient) => {
    const user = toLocalUser(
      await tx.localUser.create({
        data: { name: input.name, role: input.role, passwordHash },
        select: userSelect,
      }),
    );
    await onChange?.(tx, { operation: "create", before: null, after: user });
    return user;
  };
  try {
    return onChange ? await prisma.$transaction(create) : await create(prisma);
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AccountError("conflict", `A user named "${input.name}" already exists.`);
    }
    throw error;
  }
}

export async function listUsers(prisma: PrismaClient): Promise<LocalUser[]> {
  const rows = await prisma.localUser.findMany({ select: userSelect, orderBy: { name: "asc" } });
  return rows.map(toLocalUser);
}

export async function getUser(prisma: PrismaClient, id: string): Promise<LocalUser> {
  const row = await prisma.localUser.findUnique({ where: { id }, select: userSelect });
  if (!row) throw noSuchUser(id);
  return toLocalUser(row);
}

/**
 * Runs a demotion or deletion guarded by the last-admin check inside its own statement
 * (`"role" <> 'admin' OR (SELECT count(*) ... WHERE "role" = 'admin') > 1`). On SQLite a statement
 * is atomic, so two instances demoting two admins at once cannot both pass it; it runs alone, as a
 * transaction around it would hold the write lock across an await (two connections of one process
 * then wait for each other until the lock timeout, P1008, instead of a clear refusal). On
 * PostgreSQL a statement sees the data as of its start and two such statements on two rows do not
 * wait for each other, so both would pass: there, guarded writes take one transaction-scoped
 * advisory lock first, and the statement after it sees the commit of the one before. (Not a
 * serializable transaction: its conflicts surface at COMMIT, and adapter-pg 6.19 never releases
 * the connection of a failed COMMIT.) Returns the rows changed: 0 when the guard or the id refused.
 */
async function guardedWrite(
  prisma: PrismaClient,
  statement: (tx: Pick<PrismaClient, "$executeRaw">) => ReturnType<PrismaClient["$executeRaw"]>,
): Promise<number> {
  if (clientProvider(prisma) !== "postgresql") {
    return statement(prisma);
  }
  return prisma.$transaction(async (tx) => {
    // Any constant key will do, as long as nothing else in Ratecard uses it.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(7261630741)`;
    return statement(tx);
  });
}

/**
 * Changes a user's role and/or password. A new password also revokes the user's console sessions
 * (OWASP: end sessions on a credential change); API tokens stay, being credentials of their own.
 * Demoting the last admin is refused, and nothing is changed then. With `onChange`, the whole
 * update is one transaction (see hookedWrite).
 */
export async function updateUser(
  prisma: PrismaClient,
  id: string,
  changes: { role?: LocalRole | undefined; password?: string | undefined },
  onChange?: AccountsHook<UserChange>,
): Promise<LocalUser> {
  if (changes.role !== undefined) assertRole(changes.role);
  if (changes.password !== undefined) assertPasswordPolicy(changes.password);
  const passwordHash =
    changes.password === undefined ? undefined : await hashPassword(changes.password);

  if (onChange) {
    return hookedWrite(prisma, id, changes.role === "reader", async (tx, before) => {
      if (changes.role === "reader") {
        const demoted = await tx.$executeRaw`UPDATE "local_users" SET "role" = 'reader',
          "updated_at" = ${new Date()} WHERE "id" = ${id} AND ("role" <> 'admin'
            OR (SELECT count(*) FROM "local_users" WHERE "role" = 'admin') > 1)`;
        if (demoted === 0) throw lastAdmin(before.name);
      } else if (changes.role === "admin") {
        await tx.localUser.updateMany({ where: { id }, data: { role: "admin" } });
      }
      let sessionsRevoked = 0;
      if (passwordHash !== undefined) {
        ({ count: sessionsRevoked } = await tx.localToken.updateMany({
          where: { userId: id, kind: "session", revokedAt: null },
          data: { revokedAt: new Date() },
        }));
        await tx.localUser.updateMany({ where: { id }, data: { passwordHash } });
      }
      const after = await readUser(tx, id);
      await onChange(tx, {
        operation: "update",
        before,
        after,
        passwordChanged: passwordHash !== undefined,
        sessionsRevoked,
      });
      return after;
    });
  }

  if (changes.role === "reader") {
    const now = new Date();
    const demoted = await guardedWrite(
      prisma,
      (tx) => tx.$executeRaw`UPDATE "local_users" SET "role" = 'reader', "updated_at" = ${now}
        WHERE "id" = ${id} AND ("role" <> 'admin'
          OR (SELECT count(*) FROM "local_users" WHERE "role" = 'admin') > 1)`,
    );
    if (demoted === 0) await refuseLastAdmin(prisma, id);
  } else if (changes.role === "admin") {
    await prisma.localUser.updateMany({ where: { id }, data: { role: "admin" } });
  }
  if (passwordHash !== undefined) {
    await prisma.$transaction([
      prisma.localToken.updateMany({
        where: { userId: id, kind: "session", revokedAt: null },
        data: { revokedAt: new Date() },
      }),
      prisma.localUser.updateMany({ where: { id }, data: { passwordHash } }),
    ]);
  }
  return getUser(prisma, id);
}

/**
 * Deletes a user and (by the foreign key's cascade) every token of theirs; never the last admin.
 * With `onChange`, one transaction (see hookedWrite) whose change lists the tokens deleted.
 */
export async function deleteUser(
  prisma: PrismaClient,
  id: string,
  onChange?: AccountsHook<UserChange>,
): Promise<void> {
  if (onChange) {
    await hookedWrite(prisma, id, true, async (tx, before) => {
      const tokensDeleted = await readTokens(tx, { userId: id });
      const deleted = await tx.$executeRaw`DELETE FROM "local_users" WHERE "id" = ${id}
        AND ("role" <> 'admin' OR (SELECT count(*) FROM "local_users" WHERE "role" = 'admin') > 1)`;
      if (deleted === 0) throw lastAdmin(before.name);
      await onChange(tx, { operation: "delete", before, after: null, tokensDeleted });
    });
    return;
  }
  const deleted = await guardedWrite(
    prisma,
    (tx) => tx.$executeRaw`DELETE FROM "local_users" WHERE "id" = ${id} AND ("role" <> 'admin'
      OR (SELECT count(*) FROM "local_users" WHERE "role" = 'admin') > 1)`,
  );
  if (deleted === 0) await refuseLastAdmin(prisma, id);
}

async function readUser(tx: Prisma.TransactionClient, id: string): Promise<LocalUser> {
  const row = await tx.localUser.findUnique({ where: { id }, select: userSelect });
  if (!row) throw noSuchUser(id);
  return toLocalUser(row);
}

/**
 * A write to one user, and its hook, in one transaction, so that the hook's audit event commits
 * with the change or not at all (a refusal thrown by `write` rolls back both). Its first statement
 * claims the user's row with a write that changes nothing: on SQLite that takes the write lock
 * before anything is read (a read first could not be upgraded if another process wrote meanwhile;
 * inside one process packages/db queues other queries behind the open transaction), on PostgreSQL
 * it locks the row, so the `before` read next is exactly what the write replaces. Guarded writes
 * take guardedWrite's advisory lock first on PostgreSQL, for the same reason as there. An unknown
 * id is refused before anything is written.
 */
async function hookedWrite<T>(
  prisma: PrismaClient,
  id: string,
  guarded: boolean,
  write: (tx: Prisma.TransactionClient, before: LocalUser) => Promise<T>,
): Promise<T> {
  return prisma.$transaction(async (tx) => {
    if (guarded && clientProvider(prisma) === "postgresql") {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(7261630741)`;
    }
    const claimed =
      await tx.$executeRaw`UPDATE "local_users" SET "role" = "role" WHERE "id" = ${id}`;
    if (claimed === 0) throw noSuchUser(id);
    return write(tx, await readUser(tx, id));
  });
}

/** After a guarded write changed nothing: the user is missing, or is the last admin. */
async function refuseLastAdmin(prisma: PrismaClient, id: string): Promise<never> {
  const user = await getUser(prisma, id);
  throw lastAdmin(user.name);
}

/**
 * The user whose name and password these are, or null. Takes the same time whether or not the
 * name exists: an unknown name is verified against a dummy hash of the same cost. A hash made with
 * older parameters is replaced on a successful check.
 */
export async function checkPassword(
  prisma: PrismaClient,
  name: string,
  password: string,
): Promise<LocalUser | null> {
  // Started before the lookup so that even the first call of a process pays for it either way.
  const dummy = dummyPasswordHash();
  if ([...password].length > MAX_PASSWORD_LENGTH) return null;
  const row = await prisma.localUser.findUnique({
    where: { name },
    select: { ...userSelect, passwordHash: true },
  });
  const matches = await verifyPassword(row?.passwordHash ?? (await dummy), password);
  if (!row || !matches) return null;
  if (needsRehash(row.passwordHash)) {
    await prisma.localUser.updateMany({
      where: { id: row.id, passwordHash: row.passwordHash },
      data: { passwordHash: await hashPassword(password) },
    });
  }
  const { passwordHash: _, ...user } = row;
  return toLocalUser(user);
}
