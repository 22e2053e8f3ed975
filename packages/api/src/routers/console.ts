import { z } from "zod";
import {
  ZPathId,
  ZRuleWindow,
  ZRuleWindowInput,
  ZScopedWarnings,
  ZWarningScopeInput,
} from "@ratecard/validators";
import {
  fieldDeletionImpact,
  groupDeletionImpact,
  listAllFields,
  serviceDeletionImpact,
} from "../domain/console.js";
import { ruleWindow } from "../domain/rule-window.js";
import { scopedWarnings, warningsOfRules } from "../domain/warnings-ack.js";
import { assertAccess, publicProcedure, router } from "../trpc.js";
import { ZFieldOut } from "./revisions.js";

// RPC only (no `meta.openapi`): what the admin console needs beyond CloudKitty's REST contract.

const ZRuleCounts = z.object({ mappings: z.int(), thresholds: z.int() });

export const consoleRouter = router({
  serviceDeletionImpact: publicProcedure
    .input(z.object({ service_id: ZPathId }))
    .output(ZRuleCounts.extend({ fields: z.int() }))
    .query(({ ctx, input }) => serviceDeletionImpact(ctx.prisma, input.service_id)),

  fieldDeletionImpact: publicProcedure
    .input(z.object({ field_id: ZPathId }))
    .output(ZRuleCounts)
    .query(({ ctx, input }) => fieldDeletionImpact(ctx.prisma, input.field_id)),

  groupDeletionImpact: publicProcedure
    .input(z.object({ group_id: ZPathId }))
    .output(ZRuleCounts)
    .query(({ ctx, input }) => groupDeletionImpact(ctx.prisma, input.group_id)),

  allFields: publicProcedure
    .input(z.void())
    .output(z.object({ fields: z.array(ZFieldOut) }))
    .query(async ({ ctx }) => ({ fields: await listAllFields(ctx.prisma) })),

  /** One window of a rule list, filtered, searched, sorted and counted by the database. */
  rules: publicProcedure
    .input(ZRuleWindowInput)
    .output(ZRuleWindow)
    .query(async ({ ctx, input }) => {
      // The rows' warnings are what hashmap.warnings answers: a caller its rule refuses gets that
      // refusal, not the warnings through the list's own (read) rule.
      if (input.warnings) assertAccess(ctx, "hashmap.warnings");
      const window = await ruleWindow(ctx.prisma, input);
      if (!input.warnings) return window;
      const byRule = await warningsOfRules(
        ctx.prisma,
        ctx.ruleSets,
        window.rows.map((row) => row.id),
      );
      return {
        ...window,
        rows: window.rows.map((row) => ({ ...row, warnings: byRule.get(row.id) ?? [] })),
      };
    }),

  /**
   * The warnings panel of a service, field or group page: its warnings, each with the first rules
   * it names as list rows and the explorer's filters for the rest.
   */
  warnings: publicProcedure
    .input(ZWarningScopeInput)
    .output(ZScopedWarnings)
    .query(async ({ ctx, input }) => ({
      warnings: await scopedWarnings(ctx.prisma, ctx.ruleSets, input),
    })),
});
