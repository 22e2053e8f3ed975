import type { PrismaClient } from "./generated/prisma/client.js";
import { preparedConnectionOf } from "./prepared-connection.js";

// Under AUTH_STRATEGY=local every request's token is looked up again after any commit (verdicts
// are kept per data version), so after a write the lookup is on the hot path too.

/** A token and its user, as an authenticator needs them. */
export interface LocalTokenWithUser {
  id: string;
  userId: string;
  kind: string;
  name: string | null;
  prefix: string;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  user: { name: string; role: string; createdAt: Date; updatedAt: Date };
}

const FIND_TOKEN = `SELECT t."id", t."user_id", t."kind", t."name", t."prefix", t."created_at",
    t."expires_at", t."last_used_at", t."revoked_at",
    u."name" AS "user_name", u."role" AS "user_role", u."created_at" AS "user_created_at",
    u."updated_at" AS "user_updated_at"
  FROM "local_tokens" t JOIN "local_users" u ON u."id" = t."user_id"
  WHERE t."token_hash" = ?`;

interface TokenRow {
  id: string;
  user_id: string;
  kind: string;
  name: string | null;
  prefix: string;
  created_at: string | number;
  expires_at: string | number;
  last_used_at: string | number | null;
  revoked_at: string | number | null;
  user_name: string;
  user_role: string;
  user_created_at: string | number;
  user_updated_at: string | number;
}

/** SQLite's CURRENT_TIMESTAMP text ("2026-11-25 15:01:48") is UTC, as Prisma reads it. */
const SQL_TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/;

/** A DATETIME as Prisma reads it on SQLite: ISO text, CURRENT_TIMESTAMP text or epoch ms. */
function toDate(value: string | number): Date {
  if (typeof value === "number") return new Date(value);
  return new Date(SQL_TIMESTAMP.test(value) ? `${value.replace(" ", "T")}Z` : value);
}

/** The token whose secret hashes to `tokenHash`, with its user; null when there is none. */
export async function findLocalTokenByHash(
  prisma: PrismaClient,
  tokenHash: string,
): Promise<LocalTokenWithUser | null> {
  const connection = preparedConnectionOf(prisma);
  if (!connection) {
    return prisma.localToken.findUnique({
      where: { tokenHash },
      select: {
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
      },
    });
  }
  const row = await connection.run(
    () => connection.statement(FIND_TOKEN).get(tokenHash) as TokenRow | undefined,
  );
  if (!row) return null;
  return {
    id: row.id,
    userId: row.user_id,
    kind: row.kind,
    name: row.name,
    prefix: row.prefix,
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
    lastUsedAt: row.last_used_at === null ? null : toDate(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : toDate(row.revoked_at),
    user: {
      name: row.user_name,
      role: row.user_role,
      createdAt: toDate(row.user_created_at),
      updatedAt: toDate(row.user_updated_at),
    },
  };
}

const ACCOUNTS_GENERATION = `SELECT "generation" FROM "local_accounts_generation" WHERE "id" = 1`;

/**
 * A number that moves with every change to local users and tokens, by any process (database
 * triggers): a token's verdict holds while it stays put, whatever else was written.
 */
export async function localAccountsGeneration(prisma: PrismaClient): Promise<number> {
  const connection = preparedConnectionOf(prisma);
  if (!connection) {
    const row = await prisma.localAccountsGeneration.findUnique({ where: { id: 1 } });
    return row?.generation ?? 0;
  }
  const generation = await connection.run(
    () => connection.statement(ACCOUNTS_GENERATION).pluck().get() as number | undefined,
  );
  return generation ?? 0;
}
