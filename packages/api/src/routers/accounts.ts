import { z } from "zod";
import { ZPathId } from "@ratecard/validators";
import {
  localRoles,
  MAX_PASSWORD_LENGTH,
  MAX_TOKEN_NAME_LENGTH,
  MAX_TOKEN_TTL_MS,
} from "@ratecard/accounts";
import {
  createAccountToken,
  createAccountUser,
  deleteAccountUser,
  listAccountTokens,
  listAccountUsers,
  revokeAccountToken,
  updateAccountUser,
  type TokenScope,
} from "../domain/accounts.js";
import { publicProcedure, router, type Context } from "../trpc.js";
import { auditOf } from "./revisions.js";

// RPC only (no `meta.openapi`): the console's page for local accounts. The HTTP edge requires
// `ratecard:manage_accounts` for `users.*`; `tokens.*` act on the caller's own API tokens unless
// the edge says the caller may manage accounts (`ctx.canManageAccounts`). Lengths and the password
// policy are checked by @ratecard/accounts, whose messages say what is expected.

const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_EXPIRES_IN_DAYS = MAX_TOKEN_TTL_MS / DAY_MS;

/** The transform keeps trpc-to-openapi from switching a bare number leaf to coercion. */
const ZExpiresInDays = z
  .int({ error: "Wrong type, expected a whole number of days." })
  .min(1, { error: "A token lasts at least one day." })
  .max(MAX_EXPIRES_IN_DAYS, { error: `A token lasts at most ${MAX_EXPIRES_IN_DAYS} days.` })
  .transform((days) => days);
const ZRole = z.enum(localRoles);
// zod counts UTF-16 units: a password of MAX_PASSWORD_LENGTH astral characters is twice as long.
const ZPassword = z.string().max(MAX_PASSWORD_LENGTH * 2);

const ZAccountUser = z.object({
  id: z.string(),
  name: z.string(),
  role: ZRole,
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

const ZAccountToken = z.object({
  id: z.string(),
  userId: z.string(),
  userName: z.string(),
  kind: z.enum(["api", "session"]),
  name: z.string().nullable(),
  /** The secret's first characters, to recognise the token. */
  prefix: z.string(),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
});

function tokenScope(ctx: Context): TokenScope {
  return {
    actorUserId: ctx.actor?.userId ?? null,
    canManageAccounts: ctx.canManageAccounts ?? false,
  };
}

const usersRouter = router({
  list: publicProcedure
    .input(z.void())
    .output(z.object({ users: z.array(ZAccountUser) }))
    .query(async ({ ctx }) => ({ users: await listAccountUsers(ctx.prisma) })),

  create: publicProcedure
    .input(z.object({ name: z.string().max(64), role: ZRole, password: ZPassword }))
    .output(ZAccountUser)
    .mutation(({ ctx, input }) => createAccountUser(ctx.prisma, input, auditOf(ctx))),

  update: publicProcedure
    .input(z.object({ id: ZPathId, role: ZRole.optional(), password: ZPassword.optional() }))
    .output(ZAccountUser)
    .mutation(({ ctx, input }) => updateAccountUser(ctx.prisma, input, auditOf(ctx))),

  delete: publicProcedure
    .input(z.object({ id: ZPathId }))
    .output(z.void())
    .mutation(({ ctx, input }) => deleteAccountUser(ctx.prisma, input.id, auditOf(ctx))),
});

const tokensRouter = router({
  list: publicProcedure
    .input(z.object({ userId: ZPathId.optional() }).optional())
    .output(z.object({ tokens: z.array(ZAccountToken) }))
    .query(async ({ ctx, input }) => ({
      tokens: await listAccountTokens(ctx.prisma, tokenScope(ctx), { userId: input?.userId }),
    })),

  create: publicProcedure
    .input(
      z.object({
        name: z.string().max(MAX_TOKEN_NAME_LENGTH),
        expiresInDays: ZExpiresInDays.default(90),
      }),
    )
    .output(z.object({ secret: z.string(), token: ZAccountToken }))
    .mutation(({ ctx, input }) =>
      createAccountToken(ctx.prisma, tokenScope(ctx), input, auditOf(ctx)),
    ),

  revoke: publicProcedure
    .input(z.object({ id: ZPathId }))
    .output(ZAccountToken)
    .mutation(({ ctx, input }) =>
      revokeAccountToken(ctx.prisma, tokenScope(ctx), input.id, auditOf(ctx)),
    ),
});

export const accountsRouter = router({ users: usersRouter, tokens: tokensRouter });
