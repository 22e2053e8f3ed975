import { createHash, randomBytes } from "node:crypto";
import {
  findLocalTokenByHash,
  localAccountsGeneration,
  isForeignKeyViolation,
  type Prisma,
  type PrismaClient,
} from "@ratecard/db";
import { AccountError } from "./errors.js";
import type { AccountsHook, LocalRole, LocalUser } from "./users.js";

export const tokenKinds = ["api", "session"] as const;
export type TokenKind = (typeof tokenKinds)[number];

const DAY_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_API_TOKEN_TTL_MS = 90 * DAY_MS;
export const MAX_TOKEN_TTL_MS = 365 * DAY_MS;
/** `lastUsedAt` is a hint for people, not an audit: one write a minute per token is enough. */
export const LAST_USED_RESOLUTION_MS = 60 * 1000;
export const MAX_TOKEN_NAME_LENGTH = 100;

/** What a secret starts with: tells a reader (and a secret scanner) what kind of token it is. */
export const tokenSecretPrefixes = { api: "rc_", session: "rcs_" } as const satisfies Record<
  TokenKind,
  string
>;
const SECRET_BYTES = 32;
/** `rc_` or `rcs_` and 32 random bytes in unpadded base64url (43 characters). */
const secretPattern = /^(rcs?_)[A-Za-z0-9_-]{43}$/;
/** How many characters of the secret are stored in clear to recognise a token in a list. */
const DISPLAYED_RANDOM_CHARACTERS = 6;

/** A token as lists show it: never its secret or the secret's hash. */
export interface TokenSummary {
  id: string;
  userId: string;
  userName: string;
  kind: TokenKind;
  /** The API token's label; null for console sessions. */
  name: string | null;
  /** The secret's first characters, e.g. `rc_Xy3_aB`. */
  prefix: string;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const tokenSelect = {
  id: true,
  userId: true,
  kind: true,
  name: true,
  prefix: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
  revokedAt: true,
  user: { select: { name: true } },
} as const;

/** A row as `tokenSelect` reads it. */
type TokenRow = Prisma.LocalTokenGetPayload<{ select: typeof tokenSelect }>;

function toTokenSummary({ user, kind, ...row }: TokenRow): TokenSummary {
  // The database's CHECK keeps `kind` to the two kinds.
  return { ...row, kind: kind as TokenKind, userName: user.name };
}

export type TokenChange =
  | { operation: "create"; before: null; after: TokenSummary }
  | { operation: "update"; before: TokenSummary; after: TokenSummary };

/**
 * SHA-256, not a password hash: a secret carries 256 random bits, so there is nothing to slow down
 * for, and every authenticated request computes this.
 */
function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/**
 * Creates a token for a user. The secret is returned here only: the database keeps its hash.
 * `ttlMs` is up to a year (API tokens usually DEFAULT_API_TOKEN_TTL_MS; sessions hours).
 */
export async function issueToken(
  prisma: PrismaClient,
  input: { userId: string; kind: TokenKind; name?: string | undefined; ttlMs: number },
  onChange?: AccountsHook<TokenChange>,
): Promise<{ secret: string; token: TokenSummary }> {
  if (!tokenKinds.includes(input.kind)) {
    throw new AccountError("invalid", `A token kind is "api" or "session", not "${input.kind}".`);
  }
  if (!Number.isSafeInteger(input.ttlMs) || input.ttlMs <= 0 || input.ttlMs > MAX_TOKEN_TTL_MS) {
    throw new AccountError("invalid", "A token expires between now and one year from now.");
  }
  const name = input.name?.trim();
  if (input.kind === "api" && !name) {
    throw new AccountError("invalid", "An API token needs a name, to recognise it later.");
  }
  if (name !== undefined && name.length > MAX_TOKEN_NAME_LENGTH) {
    throw new AccountError(
      "invalid",
      `A token name is at most ${MAX_TOKEN_NAME_LENGTH} characters long.`,
    );
  }

  const prefix = tokenSecretPrefixes[input.kind];
  const secret = prefix + randomBytes(SECRET_BYTES).toString("base64url");
  const now = new Date();
  const create = async (tx: Prisma.TransactionClient) => {
    const token = toTokenSummary(
      await tx.localToken.create({
        data: {
          userId: input.userId,
          kind: input.kind,
          name: name || null,
          tokenHash: hashSecret(secret),
          prefix: secret.slice(0, prefix.length + DISPLAYED_RANDOM_CHARACTERS),
          createdAt: now,
          expiresAt: new Date(now.getTime() + input.ttlMs),
        },
        select: tokenSelect,
      }),
    );
    await onChange?.(tx, { operation: "create", before: null, after: token });
    return token;
  };
  try {
    const token = onChange ? await prisma.$transaction(create) : await create(prisma);
    return { secret, token };
  } catch (error) {
    if (isForeignKeyViolation(error)) {
      throw new AccountError("not_found", `No user with id ${input.userId}.`);
    }
    throw error;
  }
}

/**
 * The user and token a secret belongs to, or null for a malformed, unknown, revoked or expired
 * secret. The user's role is read now, so a role change applies to tokens already issued.
 *
 * The secret is never compared byte by byte: the database looks up the SHA-256 of it in a unique
 * index. What the lookup's timing could reveal is how much of a hash matched a stored hash, and
 * knowing hash bytes does not help to find a secret with that hash (SHA-256 preimage resistance),
 * so no constant-time comparison is needed. Malformed secrets are refused before any lookup.
 */
export async function authenticateToken(
  prisma: PrismaClient,
  secret: string,
): Promise<{ user: LocalUser; token: TokenSummary } | null> {
  if (!secretPattern.test(secret)) return null;
  const row = await findLocalTokenByHash(prisma, hashSecret(secret));
  const now = new Date();
  if (!row || row.revokedAt !== null || row.expiresAt <= now) return null;
  // The prefix is part of the hashed secret, so a session secret cannot pass as an API token;
  // checked anyway so that the kind a caller sees is the kind the secret says.
  if (!secret.startsWith(tokenSecretPrefixes[row.kind as TokenKind])) return null;

  const lastUsedBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  if (row.lastUsedAt === null || row.lastUsedAt < lastUsedBefore) {
    // Conditional, so that requests racing on one token still write once a minute.
    await prisma.localToken.updateMany({
      where: {
        id: row.id,
        OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: lastUsedBefore } }],
      },
      data: { lastUsedAt: now },
    });
    row.lastUsedAt = now;
  }

  const { user, ...token } = row;
  return {
    user: {
      id: row.userId,
      name: user.name,
      role: user.role as LocalRole,
      createdAt: user.createdAt,
      updatedAt: user.updatedAt,
    },
    token: toTokenSummary({ ...token, user }),
  };
}

/**
 * Moves with every change to users and tokens, made by any process: a verdict on a token holds
 * while it stays put, whatever else was written meanwhile.
 */
export function accountsGeneration(prisma: PrismaClient): Promise<number> {
  return localAccountsGeneration(prisma);
}

/** Tokens, oldest first, of one user or of everyone; revoked and expired ones included. */
export async function listTokens(
  prisma: PrismaClient,
  filter: { userId?: string | undefined; kind?: TokenKind | undefined } = {},
): Promise<TokenSummary[]> {
  return readTokens(prisma, filter);
}

/** listTokens with any client, a transaction's included. */
export async function readTokens(
  prisma: Prisma.TransactionClient,
  filter: { userId?: string | undefined; kind?: TokenKind | undefined },
): Promise<TokenSummary[]> {
  const rows = await prisma.localToken.findMany({
    where: {
      ...(filter.userId !== undefined && { userId: filter.userId }),
      ...(filter.kind !== undefined && { kind: filter.kind }),
    },
    select: tokenSelect,
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map(toTokenSummary);
}

/**
 * Revokes a token (idempotent: a revoked token keeps its first revocation time). With `userId`,
 * only that user's token: someone else's is "not found", so its existence is not disclosed.
 */
export async function revokeToken(
  prisma: PrismaClient,
  id: string,
  owner: { userId?: string | undefined } = {},
  onChange?: AccountsHook<TokenChange>,
): Promise<TokenSummary> {
  const where = { id, ...(owner.userId !== undefined && { userId: owner.userId }) };
  const revoke = async (tx: Prisma.TransactionClient) => {
    // The write comes first (see users.ts, hookedWrite): on SQLite it takes the write lock before
    // the read, and on PostgreSQL the row's lock, so `before` is what the revocation replaced.
    const now = new Date();
    const { count } = await tx.localToken.updateMany({
      where: { ...where, revokedAt: null },
      data: { revokedAt: now },
    });
    const row = await tx.localToken.findFirst({ where, select: tokenSelect });
    if (!row) throw new AccountError("not_found", `No token with id ${id}.`);
    const after = toTokenSummary(row);
    // Revoking a revoked token changes nothing, so it is no change to report.
    if (count > 0) {
      await onChange?.(tx, { operation: "update", before: { ...after, revokedAt: null }, after });
    }
    return after;
  };
  return onChange ? prisma.$transaction(revoke) : revoke(prisma);
}

/** Deletes tokens that expired before `now` (revoked ones are kept until then, for the lists). */
export async function deleteExpiredTokens(
  prisma: PrismaClient,
  now: Date = new Date(),
): Promise<number> {
  const { count } = await prisma.localToken.deleteMany({ where: { expiresAt: { lt: now } } });
  return count;
}
