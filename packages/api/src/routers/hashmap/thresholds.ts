import { z } from "zod";
import {
  ZThresholdCreate,
  ZThresholdUpdate,
  ZPathId,
  ZQueryBoolean,
  ZRuleListFilters,
} from "@ratecard/validators";
import { getGroup } from "../../domain/groups.js";
import {
  createThreshold,
  deleteThreshold,
  getThreshold,
  listThresholds,
  updateThreshold,
} from "../../domain/rules.js";
import { fail } from "../../domain/errors.js";
import { publicProcedure, router } from "../../trpc.js";
import { ZGroupOut, ZThresholdOut, auditOf, expectingRevision, writeOf } from "../revisions.js";
import { created, deleted, HASHMAP } from "../rest.js";

const tags = ["hashmap: thresholds"];
const ZThresholdId = z.strictObject({ threshold_id: ZPathId });

export const thresholdsRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/thresholds`,
        tags,
        summary: "List thresholds",
        description:
          "Every filter is optional. tenant_id is read only with filter_tenant=true; " +
          "filter_tenant=true without tenant_id lists the thresholds that have no tenant." +
          " Deleted rules are left out unless deleted=true; CloudKitty master's filters start (at or after), end (before), created_by, updated_by, deleted_by, description (contains, any case) and is_active=true (in force now) narrow the list (docs/lifecycle.md).",
        protect: false,
      },
    })
    .input(ZRuleListFilters)
    .output(z.object({ thresholds: z.array(ZThresholdOut) }))
    .query(async ({ ctx, input }) => ({ thresholds: await listThresholds(ctx.prisma, input) })),

  // Registered before `get`: the first route whose path matches wins.
  group: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/thresholds/group`,
        tags,
        summary: "Get the group of a threshold",
        protect: false,
      },
    })
    .input(z.strictObject({ threshold_id: ZPathId }))
    .output(ZGroupOut)
    .query(async ({ ctx, input }) => {
      const threshold = await getThreshold(ctx.prisma, input.threshold_id);
      if (!threshold.group_id)
        throw fail.notFound(`Threshold has no group (UUID: ${input.threshold_id})`);
      return getGroup(ctx.prisma, threshold.group_id);
    }),

  get: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/thresholds/{threshold_id}`,
        tags,
        summary: "Get a threshold",
        protect: false,
      },
    })
    .input(ZThresholdId)
    .output(ZThresholdOut)
    .query(({ ctx, input }) => getThreshold(ctx.prisma, input.threshold_id)),

  create: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${HASHMAP}/thresholds`,
        tags,
        summary: "Create a threshold",
        description:
          "start defaults to now and may not be in the past unless the query says ?force=true; end may not precede start, and a date alone means 23:59:59 that day (docs/lifecycle.md).",
        protect: false,
      },
      bodyName: "threshold_data",
      queryParameters: ["force"],
    })
    .input(ZThresholdCreate.extend({ force: ZQueryBoolean.optional() }))
    .output(ZThresholdOut)
    .mutation(async ({ ctx, input }) => {
      const { force, ...data } = input;
      const threshold = await createThreshold(ctx.prisma, data, auditOf(ctx), { force });
      return created(ctx, threshold, threshold.threshold_id);
    }),

  update: publicProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: `${HASHMAP}/thresholds/{threshold_id}`,
        tags,
        summary: "Update a threshold",
        description:
          "Replaces level, type (default flat), cost, tenant_id (default none) and group_id " +
          "(kept when omitted, removed when null). The parent never changes. The id may also be " +
          "given as ?threshold_id= or inside the body of PUT .../thresholds, as CloudKitty's client does.",
        protect: false,
      },
      bodyName: "threshold",
    })
    .input(expectingRevision(ZThresholdUpdate))
    .output(ZThresholdOut)
    .mutation(({ ctx, input }) => {
      const { revision, ...update } = input;
      return updateThreshold(ctx.prisma, update, writeOf(ctx, revision), {
        mode: ctx.ruleUpdateMode,
      });
    }),

  delete: publicProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${HASHMAP}/thresholds/{threshold_id}`,
        tags,
        summary: "Delete a threshold",
        protect: false,
      },
    })
    .input(expectingRevision(ZThresholdId))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteThreshold(ctx.prisma, input.threshold_id, writeOf(ctx, input.revision));
      deleted(ctx);
    }),
});
