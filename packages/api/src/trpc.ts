import { initTRPC, TRPCError } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { ZodError } from "zod";
import type { PrismaClient } from "@ratecard/db";
import type { MetricsConfig } from "./domain/info.js";
import { RuleSetCache } from "./domain/rating.js";

/**
 * How the REST layer should answer, set by procedures that differ from "200 with the output".
 * Over RPC it is ignored.
 */
export interface RestOutcome {
  status?: 201 | 204;
  /** The id of a created object: the REST layer answers with `Location: <collection>/<id>`. */
  createdId?: string;
}

export interface Context {
  prisma: PrismaClient;
  /** The compiled rule set for pricing, shared by every request of one server. */
  ruleSets: RuleSetCache;
  /** The collector's metrics (`METRICS_FILE`), loaded once at start; null without a file. */
  metrics: MetricsConfig | null;
  rest: RestOutcome;
}

/** Builds a context without HTTP (tests, scripts). Share one `ruleSets` across requests. */
export function createContextInner(opts: {
  prisma: PrismaClient;
  ruleSets?: RuleSetCache;
  metrics?: MetricsConfig | null;
}): Context {
  return {
    prisma: opts.prisma,
    ruleSets: opts.ruleSets ?? new RuleSetCache(),
    metrics: opts.metrics ?? null,
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

/**
 * Every procedure. A mutation may change rules, so whatever it does, the compiled rule set is
 * dropped afterwards and the next quote reloads it.
 */
export const publicProcedure = t.procedure.use(async ({ ctx, type, next }) => {
  try {
    return await next();
  } finally {
    if (type === "mutation") ctx.ruleSets.invalidate();
  }
});
export const createCallerFactory = t.createCallerFactory;

/** The one place domain failures become API errors (and so HTTP statuses). */
export const fail = {
  badRequest: (message: string) => new TRPCError({ code: "BAD_REQUEST", message }),
  notFound: (message: string) => new TRPCError({ code: "NOT_FOUND", message }),
  conflict: (message: string) => new TRPCError({ code: "CONFLICT", message }),
};
