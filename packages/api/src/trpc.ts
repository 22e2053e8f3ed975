import { initTRPC, TRPCError } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { ZodError } from "zod";
import type { PrismaClient } from "@ratecard/db";

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
  rest: RestOutcome;
}

/** Builds a context without HTTP (tests, scripts). */
export function createContextInner(opts: { prisma: PrismaClient }): Context {
  return { prisma: opts.prisma, rest: {} };
}

export interface RatecardMeta extends OpenApiMeta {
  /**
   * CloudKitty's name for the request body, used in "Unknown attribute for argument <name>: foo".
   */
  bodyName?: string;
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
export const publicProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;

/** The one place domain failures become API errors (and so HTTP statuses). */
export const fail = {
  badRequest: (message: string) => new TRPCError({ code: "BAD_REQUEST", message }),
  notFound: (message: string) => new TRPCError({ code: "NOT_FOUND", message }),
  conflict: (message: string) => new TRPCError({ code: "CONFLICT", message }),
};
