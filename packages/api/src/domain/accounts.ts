import {
  AccountError,
  createUser,
  deleteUser,
  issueToken,
  listTokens,
  listUsers,
  revokeToken,
  updateUser,
  type LocalRole,
  type LocalUser,
  type TokenChange,
  type TokenSummary,
  type UserChange,
} from "@ratecard/accounts";
import { appendAuditEvent, type Prisma, type PrismaClient } from "@ratecard/db";
import { auditEvent, type AuditContext } from "./audit.js";
import { fail } from "./errors.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** A local user as the console shows one (dates as ISO 8601: RPC carries JSON). */
export interface TAccountUser {
  id: string;
  name: string;
  role: LocalRole;
  createdAt: string;
  updatedAt: string;
}

// A type, not an interface: audit cascades take it as a plain record.
export type TAccountToken = {
  id: string;
  userId: string;
  userName: string;
  kind: "api" | "session";
  name: string | null;
  prefix: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
};

function renderUser(user: LocalUser): TAccountUser {
  return {
    ...user,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}

function renderToken(token: TokenSummary): TAccountToken {
  return {
    ...token,
    createdAt: token.createdAt.toISOString(),
    expiresAt: token.expiresAt.toISOString(),
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
    revokedAt: token.revokedAt?.toISOString() ?? null,
  };
}

/**
 * The audit event of a change to a user, appended by @ratecard/accounts inside the change's own
 * transaction. The objects are the ones the console is shown: no password or hash is ever in them.
 */
function auditUser(audit: AuditContext) {
  return async (tx: Prisma.TransactionClient, change: UserChange): Promise<void> => {
    const resourceId = (change.after ?? change.before).id;
    await appendAuditEvent(
      tx,
      auditEvent(audit, {
        operation: change.operation,
        resourceType: "user",
        resourceId,
        before: change.before && renderUser(change.before),
        after: change.after && renderUser(change.after),
        ...(change.operation === "update" &&
          change.passwordChanged && {
            cascade: { password_changed: true, sessions_revoked: change.sessionsRevoked },
          }),
        ...(change.operation === "delete" && {
          cascade: { deleted: { tokens: change.tokensDeleted.map(renderToken) } },
        }),
      }),
    );
  };
}

/** Likewise for a token: its summary (id, owner, kind, name, first characters), never its hash. */
function auditToken(audit: AuditContext) {
  return async (tx: Prisma.TransactionClient, change: TokenChange): Promise<void> => {
    await appendAuditEvent(
      tx,
      auditEvent(audit, {
        operation: change.operation,
        resourceType: "token",
        resourceId: change.after.id,
        before: change.before && renderToken(change.before),
        after: renderToken(change.after),
      }),
    );
  };
}

/** The one place @ratecard/accounts' refusals become API errors. */
async function accountCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof AccountError)) throw error;
    switch (error.kind) {
      case "not_found":
        throw fail.notFound(error.message);
      case "conflict":
        throw fail.conflict(error.message);
      case "invalid":
        throw fail.badRequest(error.message);
    }
  }
}

export async function listAccountUsers(prisma: PrismaClient): Promise<TAccountUser[]> {
  return (await listUsers(prisma)).map(renderUser);
}

export function createAccountUser(
  prisma: PrismaClient,
  input: { name: string; role: LocalRole; password: string },
  audit: AuditContext,
): Promise<TAccountUser> {
  return accountCall(async () => renderUser(await createUser(prisma, input, auditUser(audit))));
}

export function updateAccountUser(
  prisma: PrismaClient,
  input: { id: string; role?: LocalRole | undefined; password?: string | undefined },
  audit: AuditContext,
): Promise<TAccountUser> {
  return accountCall(async () =>
    renderUser(
      await updateUser(
        prisma,
        input.id,
        { role: input.role, password: input.password },
        auditUser(audit),
      ),
    ),
  );
}

export function deleteAccountUser(
  prisma: PrismaClient,
  id: string,
  audit: AuditContext,
): Promise<void> {
  return accountCall(() => deleteUser(prisma, id, auditUser(audit)));
}

/**
 * Who a token operation acts for. Without the right to manage accounts a caller sees and revokes
 * only its own tokens; with it, anyone's.
 */
export interface TokenScope {
  actorUserId: string | null;
  canManageAccounts: boolean;
}

function ownUserId(scope: TokenScope): string {
  if (scope.actorUserId === null) {
    throw fail.forbidden("Only a signed-in local user has API tokens.");
  }
  return scope.actorUserId;
}

export async function listAccountTokens(
  prisma: PrismaClient,
  scope: TokenScope,
  filter: { userId?: string | undefined },
): Promise<TAccountToken[]> {
  let userId = filter.userId;
  if (!scope.canManageAccounts) {
    const own = ownUserId(scope);
    if (userId !== undefined && userId !== own) {
      throw fail.forbidden("Only an account manager may list other users' tokens.");
    }
    userId = own;
  }
  return (await listTokens(prisma, { userId, kind: "api" })).map(renderToken);
}

/** An API token for the caller's own user; the secret is in this answer only. */
export function createAccountToken(
  prisma: PrismaClient,
  scope: TokenScope,
  input: { name: string; expiresInDays: number },
  audit: AuditContext,
): Promise<{ secret: string; token: TAccountToken }> {
  const userId = ownUserId(scope);
  return accountCall(async () => {
    const { secret, token } = await issueToken(
      prisma,
      { userId, kind: "api", name: input.name, ttlMs: input.expiresInDays * DAY_MS },
      auditToken(audit),
    );
    return { secret, token: renderToken(token) };
  });
}

export function revokeAccountToken(
  prisma: PrismaClient,
  scope: TokenScope,
  id: string,
  audit: AuditContext,
): Promise<TAccountToken> {
  const owner = scope.canManageAccounts ? {} : { userId: ownUserId(scope) };
  return accountCall(async () =>
    renderToken(await revokeToken(prisma, id, owner, auditToken(audit))),
  );
}
