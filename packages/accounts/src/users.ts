import { isUniqueViolation, type PrismaClient } from "@ratecard/db";
import { AccountError } from "./errors.js";
import {
  assertPasswordPolicy,
  dummyPasswordHash,
  hashPassword,
  MAX_PASSWORD_LENGTH,
  needsRehash,
  verifyPassword,
} from "./passwords.js";

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
): Promise<LocalUser> {
  assertUserName(input.name);
  assertRole(input.role);
  assertPasswordPolicy(input.password);
  const passwordHash = await hashPassword(input.password);
  try {
    const row = await prisma.localUser.create({
      data: { name: input.name, role: input.role, passwordHash },
      select: userSelect,
    });
    return toLocalUser(row);
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
  // Prisma's own name for the client's database (packages/db does not say it on the client).
  if ((prisma as { _activeProvider?: string })._activeProvider !== "postgresql") {
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
 * Demoting the last admin is refused, and nothing is changed then.
 */
export async function updateUser(
  prisma: PrismaClient,
  id: string,
  changes: { role?: LocalRole | undefined; password?: string | undefined },
): Promise<LocalUser> {
  if (changes.role !== undefined) assertRole(changes.role);
  if (changes.password !== undefined) assertPasswordPolicy(changes.password);
  const passwordHash =
    changes.password === undefined ? undefined : await hashPassword(changes.password);

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

/** Deletes a user and (by the foreign key's cascade) every token of theirs; never the last admin. */
export async function deleteUser(prisma: PrismaClient, id: string): Promise<void> {
  const deleted = await guardedWrite(
    prisma,
    (tx) => tx.$executeRaw`DELETE FROM "local_users" WHERE "id" = ${id} AND ("role" <> 'admin'
      OR (SELECT count(*) FROM "local_users" WHERE "role" = 'admin') > 1)`,
  );
  if (deleted === 0) await refuseLastAdmin(prisma, id);
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
