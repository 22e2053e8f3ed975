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
import { deleted, HASHMAP } from "./rest.js";
import { auditOf } from "./revisions.js";

const tags = ["rating"];
const ACKNOWLEDGEMENT = "/v1/ratecard/warnings/{warning_key}/acknowledgement";

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
    .meta({
      openapi: {
        method: "PUT",
        path: ACKNOWLEDGEMENT,
        tags,
        summary: "Acknowledge a warning as intended, with a note",
        description:
          "The warning's key and the fingerprint read with it (GET .../hashmap/warnings): a " +
          "fingerprint the rules have moved past is refused (412), a warning that no longer " +
          "applies is a 404. Acknowledging again replaces the note. The answer is the warning.",
        protect: false,
      },
      bodyName: "acknowledgement",
    })
    .input(ZAcknowledgeWarningRequest)
    .output(ZAcknowledgeableWarning)
    .mutation(({ ctx, input }) =>
      acknowledgeWarning(ctx.prisma, ctx.ruleSets, input, auditOf(ctx)),
    ),

  withdraw: publicProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: ACKNOWLEDGEMENT,
        tags,
        summary: "Withdraw a warning's acknowledgement: the warning is open again",
        protect: false,
      },
    })
    .input(ZWithdrawWarningAcknowledgementRequest)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await withdrawWarningAcknowledgement(ctx.prisma, input.warning_key, auditOf(ctx));
      deleted(ctx);
    }),
});
