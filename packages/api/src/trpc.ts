import { initTRPC, TRPCError } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { ZodError } from "zod";
import { setTimeout as sleep } from "node:timers/promises";
import {
  isCheckViolation,
  isDatabaseUnavailable,
  isTransactionConflict,
  type PrismaClient,
} from "@ratecard/db";
import type { MetricsConfig } from "./domain/info.js";
import { DomainError, type DomainErrorKind } from "./domain/errors.js";
import { RuleSetCache } from "./domain/rating.js";
import type { RuleUpdateMode } from "./domain/lifecycle.js";
import { TARGET_APPLY_LEASE_MS } from "./domain/target-lock.js";
import type { TargetSecretBox } from "./domain/targets.js";

/**
 * How the REST layer should answer, set by procedures that differ from "200 with the output".
 * Over RPC it is ignored.
 */
export interface RestOutcome {
  status?: 201 | 204;
  /** The id of a created object: the REST layer answers with `Location: <collection>/<id>`. */
  createdId?: string;
  /**
   * The answer's exact text in place of the output as JSON (the rule-set document's canonical
   * JSON or YAML), with its media type and entity tag (If-None-Match is answered 304).
   */
  representation?: { contentType: string; text: string; etag: string };
}

/** Who made a request, as the HTTP edge authenticated it: recorded with every change. */
export interface Actor {
  userId: string;
  userName: string;
  projectId: string | null;
  /** The client's address (after trusted proxies). */
  address: string | null;
}

/** Why a call may not run: the HTTP edge decides (identity, CSRF, policy), the router reports it. */
export interface AccessRefusal {
  code: "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND";
  message: string;
}

/**
 * The edge's verdict on each procedure call of a request. REST requests are authorized by the edge
 * before routing; RPC batches carry several calls, each answered on its own, so the router asks here.
 */
export interface Access {
  check(procedurePath: string, type: "query" | "mutation" | "subscription"): AccessRefusal | null;
}

/** Allows every call: contexts built without HTTP (tests, scripts) and requests already authorized. */
export const allowAll: Access = { check: () => null };

export interface Context {
  prisma: PrismaClient;
  access: Access;
  /** Null only for contexts built without HTTP (tests, scripts). */
  actor: Actor | null;
  /**
   * Whether the caller passes the policy `ratecard:manage_accounts`, set by the HTTP edge: then
   * `accounts.tokens.*` reach every user's tokens, not only the caller's own.
   */
  canManageAccounts: boolean;
  /** The compiled rule set for pricing, shared by every request of one server. */
  ruleSets: RuleSetCache;
  /** The collector's metrics (`METRICS_FILE`), loaded once at start; null without a file. */
  metrics: MetricsConfig | null;
  /** The request's `x-openstack-request-id` (the access log's), recorded with every change. */
  requestId: string | null;
  /** RULE_UPDATE_MODE: whether a rule in force may be edited (`in-place`) or only ended (`strict`). */
  ruleUpdateMode: RuleUpdateMode;
  /** Seals and opens CloudKitty targets' secrets with the server's key, read on first use. */
  targetSecrets: () => TargetSecretBox;
  /** TARGET_APPLY_LEASE_SECONDS: how long a target's apply lease lasts without renewal. */
  targetApplyLeaseMs: number;
  rest: RestOutcome;
}

/** Builds a context without HTTP (tests, scripts). Share one `ruleSets` across requests. */
export function createContextInner(opts: {
  prisma: PrismaClient;
  ruleSets?: RuleSetCache;
  metrics?: MetricsConfig | null;
  actor?: Actor | null;
  access?: Access;
  canManageAccounts?: boolean;
  requestId?: string | null;
  ruleUpdateMode?: RuleUpdateMode;
  targetSecrets?: () => TargetSecretBox;
  targetApplyLeaseMs?: number;
}): Context {
  return {
    prisma: opts.prisma,
    access: opts.access ?? allowAll,
    actor: opts.actor ?? null,
    canManageAccounts: opts.canManageAccounts ?? false,
    ruleSets: opts.ruleSets ?? new RuleSetCache(),
    metrics: opts.metrics ?? null,
    requestId: opts.requestId ?? null,
    ruleUpdateMode: opts.ruleUpdateMode ?? "in-place",
    targetSecrets:
      opts.targetSecrets ??
      (() => {
        // A context built without HTTP and without a key: a caller's mistake, not a client's.
        throw new Error("createContextInner was given no targetSecrets");
      }),
    targetApplyLeaseMs: opts.targetApplyLeaseMs ?? TARGET_APPLY_LEASE_MS,
    rest: {},
  };
}

export interface RatecardMeta extends OpenApiMeta {
  /**
   * CloudKitty's name for the request body, used in "Unknown attribute for argument <name>: foo".
   */
  bodyName?: string;
  /** The output is a decimal string that REST answers as a bare JSON number (CloudKitty's quote). */
  decimalAsJsonNumber?: boolean;
  /**
   * Arguments a REST request with a body reads from its query string (CloudKitty master's
   * `POST .../mappings?force=true`); RPC callers give them in the input with the rest.
   */
  queryParameters?: string[];
  /**
   * A POST that acts rather than creates (a quote, a plan, a probe): answered 200 with its result,
   * not a create's 201 with a Location. The OpenAPI document says which.
   */
  action?: boolean;
}

const t = initTRPC
  .context<Context>()
  .meta<RatecardMeta>()
  .create({
    errorFormatter({ shape, error }) {
      const zodError = error.cause instanceof ZodError ? error.cause.issues : null;
      // Stack traces stay in the server log; clients never see them.
      const { stack, ...data } = shape.data;
      return { ...shape, data: { ...data, zodError } };
    },
  });

export const router = t.router;

/** How often a procedure runs when PostgreSQL keeps giving up its transaction for another's. */
const CONFLICT_ATTEMPTS = 3;
/** The longest first pause before running it again; it doubles with each attempt. */
const CONFLICT_BACKOFF_MS = 20;

/**
 * Refuses the call as the edge would refuse `procedurePath`: for a procedure whose answer, on
 * request, includes what another procedure's policy rule guards.
 */
export function assertAccess(
  ctx: Context,
  procedurePath: string,
  type: "query" | "mutation" | "subscription" = "query",
): void {
  const refusal = ctx.access.check(procedurePath, type);
  if (refusal) throw new TRPCError({ code: refusal.code, message: refusal.message });
}

/**
 * Every procedure. The edge's access verdict comes first. A mutation may change rules, so whatever
 * it does, the compiled rule set is dropped afterwards and the next quote reloads it.
 *
 * A serialization failure or deadlock (PostgreSQL under concurrent writers) rolled the procedure's
 * transaction back, so the procedure runs again after a random pause (full jitter, so that the
 * writers that collided do not collide again in step), up to CONFLICT_ATTEMPTS times; then it is a
 * 503. This holds because every procedure writes in one statement or one transaction, or in steps
 * that give the same result when run again (updateUser): keep it so.
 */
export const publicProcedure = t.procedure.use(async ({ ctx, path, type, next }) => {
  assertAccess(ctx, path, type);
  try {
    let result = await next();
    for (
      let attempt = 1;
      attempt < CONFLICT_ATTEMPTS && !result.ok && isTransactionConflict(result.error.cause);
      attempt += 1
    ) {
      await sleep(Math.random() * CONFLICT_BACKOFF_MS * 2 ** (attempt - 1));
      result = await next();
    }
    if (!result.ok && result.error.cause instanceof DomainError) {
      const { kind, message } = result.error.cause;
      throw new TRPCError({ code: API_ERROR_OF[kind], message, cause: result.error.cause });
    }
    // Not the request's fault, nor a bug: the same request may succeed once the database is back.
    if (!result.ok && isDatabaseUnavailable(result.error.cause)) {
      throw new TRPCError({
        code: "SERVICE_UNAVAILABLE",
        message: DATABASE_UNAVAILABLE_MESSAGE,
        cause: result.error.cause,
      });
    }
    // The database's own rules are a safety net behind the API's validation: a value that slips
    // through is still the client's, answered 400 alike on SQLite and PostgreSQL.
    if (!result.ok && isCheckViolation(result.error.cause)) {
      throw new TRPCError({
        code: "BAD_REQUEST",
        message: "The request breaks a rule of the rating data (a database constraint refused it)",
        cause: result.error.cause,
      });
    }
    return result;
  } finally {
    if (type === "mutation") ctx.ruleSets.invalidate();
  }
});
export const createCallerFactory = t.createCallerFactory;

/** The fault's text when the database cannot answer (HTTP 503). */
export const DATABASE_UNAVAILABLE_MESSAGE = "The database is unavailable; retry later";

/** The one place domain failures become API errors (and so HTTP statuses). */
const API_ERROR_OF: Record<DomainErrorKind, TRPCError["code"]> = {
  invalid: "BAD_REQUEST",
  not_found: "NOT_FOUND",
  conflict: "CONFLICT",
  forbidden: "FORBIDDEN",
  not_supported: "METHOD_NOT_SUPPORTED",
  stale: "PRECONDITION_FAILED",
};
