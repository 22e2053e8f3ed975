import { z } from "zod";
import {
  ZAcknowledgeableWarning,
  ZAcknowledgeWarningRequest,
  ZPathId,
  ZWithdrawWarningAcknowledgementRequest,
} from "@ratecard/validators";
import {
  acknowledgeableWarnings,
  acknowledgeWarning,
  withdrawWarningAcknowledgement,
} from "../domain/warnings-ack.js";
import { publicProcedure, router } from "../trpc.js";
import { HASHMAP } from "./rest.js";
import { auditOf } from "./revisions.js";

const tags = ["rating"];

/** The rule set's warnings with their acknowledgements, and acknowledging one with a note. */
export const warningsRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/warnings`,
        tags,
        summary: "Rules that price nothing or that another rule silently beats",
        description:
          "Each warning carries its key, the fingerprint of the rules involved (ids and revisions) " +
          "and its acknowledgement, if an operator marked it intended: `reopened` is true when a " +
          "rule involved changed since, and the warning counts as open again.",
        protect: false,
      },
    })
    .input(
      z.strictObject({ service_id: ZPathId.optional(), group_id: ZPathId.optional() }).optional(),
    )
    .output(z.object({ warnings: z.array(ZAcknowledgeableWarning) }))
    .query(async ({ ctx, input }) => ({
      warnings: await acknowledgeableWarnings(ctx.prisma, ctx.ruleSets, input ?? {}),
    })),

  acknowledge: publicProcedure
    .input(ZAcknowledgeWarningRequest)
    .output(ZAcknowledgeableWarning)
    .mutation(({ ctx, input }) =>
      acknowledgeWarning(ctx.prisma, ctx.ruleSets, input, auditOf(ctx)),
    ),

  withdraw: publicProcedure
    .input(ZWithdrawWarningAcknowledgementRequest)
    .output(z.void())
    .mutation(({ ctx, input }) =>
      withdrawWarningAcknowledgement(ctx.prisma, input.warning_key, auditOf(ctx)),
    ),
});
