import { z } from "zod";
import { DRIFT_KINDS } from "@ratecard/bridge";
import { ZPathId } from "@ratecard/validators";
import { checkTargetDrift } from "../domain/target-drift.js";
import { publicProcedure, router } from "../trpc.js";
import { auditOf } from "./revisions.js";

// The drift check of a CloudKitty target (issue 14, section 4), merged into the `targets`
// namespace (root.ts). Policy: ratecard:manage_targets, as every target route.

const tags = ["ratecard: CloudKitty targets"];

const ZValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const ZDriftKind = z.enum(DRIFT_KINDS);

const ZDriftOut = z.object({
  run_id: z.string(),
  target_id: z.string(),
  checked_at: z.string(),
  last_apply: z
    .object({
      run_id: z.string(),
      finished_at: z.string().nullable(),
      actor: z.string().nullable(),
      ratecard_revision: z.string().nullable(),
    })
    .nullable(),
  double_precision: z.boolean(),
  differences: z.array(
    z.object({
      kind: ZDriftKind,
      object_kind: z.string(),
      path: z.string(),
      ratecard_id: z.string().nullable(),
      target_id: z.string().nullable(),
      field: z.string().optional(),
      expected: ZValue.optional(),
      actual: ZValue.optional(),
      against: z.enum(["last_apply", "ratecard"]),
      note: z.string().optional(),
    }),
  ),
  counts: z.record(ZDriftKind, z.number()),
  notes: z.array(z.string()),
  request_count: z.number(),
});

export const targetDriftRouter = router({
  drift: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/ratecard/targets/{target_id}/drift",
        tags,
        summary: "Check a CloudKitty target for drift",
        description:
          "Reads the target and lists how it differs from the rule-set document last applied to " +
          "it (`against: last_apply`) and from Ratecard's rule set now (`against: ratecard`): " +
          "`missing`, `extra`, `changed` (the attribute, `expected` and `actual`); and what is " +
          "wrong with the target on its own: `duplicate` (a rule CloudKitty holds twice), " +
          "`module_disabled` (a rating module disabled while it holds rules), `unknown_metric` " +
          "(a service no collected metric of `/v1/info/metrics` is named after) and " +
          "`unknown_metadata` (a field that metric does not keep). Costs compare as exact " +
          "decimals, or as doubles when the target stores doubles (SQLite: " +
          "`double_precision`). Scripts and module states are compared only when the target " +
          "has them pushed. Read only on both sides; kept as a run of kind `drift`.",
        protect: false,
      },
    })
    .input(z.strictObject({ target_id: ZPathId }))
    .output(ZDriftOut)
    .query(({ ctx, input }) =>
      checkTargetDrift(ctx.prisma, ctx.targetSecrets(), input.target_id, auditOf(ctx)),
    ),
});
