import { z } from "zod";
import { ZRuleSetDocumentOutput, ZRuleSetPlanOutput } from "@ratecard/ruleset";
import { applyRuleSetDocument } from "../domain/ruleset-apply.js";
import { exportRuleSetText, planRuleSetChange } from "../domain/ruleset.js";
import { publicProcedure, router } from "../trpc.js";
import { auditOf } from "./revisions.js";

// The rule set as one reviewable document (issue 14), on Ratecard's own path (outside
// CloudKitty's namespaces), over REST and RPC.

const tags = ["ratecard: rule set"];

const ZApplyOutput = z
  .object({
    planned_revision: z
      .string()
      .meta({ description: "The revision the document was planned against, as it named it" }),
    revision: z.string().meta({
      description: "The rule set's revision after the apply (the same when nothing changed)",
    }),
    counts: ZRuleSetPlanOutput.shape.counts,
  })
  .meta({ id: "RuleSetApplied" });

const MEDIA_TYPES = { json: "application/json", yaml: "application/yaml" } as const;

export const rulesetRouter = router({
  export: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/ratecard/ruleset",
        tags,
        summary: "Export the rule set",
        description:
          "The whole rule set (modules, groups, services with their fields, mappings and " +
          "thresholds, scripts; rules and scripts with their lifecycle: start, end, name, " +
          "description), every object with its id, as one canonical document: decimals " +
          "as strings, a stable order, so that the same rule set always gives the same bytes. " +
          "`revision` is the newest audit event's number. `?format=yaml` answers the same in " +
          "YAML (`application/yaml`). The ETag names the revision and the format; If-None-Match " +
          "answers 304. Policy: ratecard:export_ruleset.",
        protect: false,
      },
    })
    .input(
      z
        .strictObject({
          format: z
            .enum(["json", "yaml"])
            .optional()
            .meta({ description: "json (default) or yaml; over RPC the answer is the document." }),
        })
        .optional(),
    )
    .output(ZRuleSetDocumentOutput)
    .query(async ({ ctx, input }) => {
      const format = input?.format ?? "json";
      const { document, text } = await exportRuleSetText(ctx.prisma, format);
      ctx.rest.representation = {
        contentType: MEDIA_TYPES[format],
        text,
        etag: `"ruleset.${document.revision}.${format}"`,
      };
      return document;
    }),

  plan: publicProcedure
    .meta({
      action: true,
      openapi: {
        method: "POST",
        path: "/v1/ratecard/ruleset/plan",
        tags,
        summary: "Plan a rule set",
        description:
          "The operations (create, update, delete, each with the object's path, before and " +
          "after) that would turn the current rule set into the document in the body, with " +
          "counts and the revision planned against. Changes nothing. An invalid document is " +
          "refused (400) with every error and its JSON path. Policy: ratecard:export_ruleset.",
        protect: false,
      },
    })
    // Validated by the domain, which reports every error with its path (zod's first issue alone
    // is what a procedure's input error would show).
    .input(z.looseObject({}).meta({ description: "A rule set document, as the export gives it" }))
    .output(ZRuleSetPlanOutput)
    .mutation(
      async ({ ctx, input }) =>
        // The records are interfaces (no index signature); the output schema checks them anyway.
        (await planRuleSetChange(ctx.prisma, input)) as unknown as z.infer<
          typeof ZRuleSetPlanOutput
        >,
    ),

  // Not `apply`: tRPC reserves the names of Function.prototype members.
  applyDocument: publicProcedure
    .meta({
      action: true,
      openapi: {
        method: "POST",
        path: "/v1/ratecard/ruleset/apply",
        tags,
        summary: "Apply a rule set",
        description:
          "Makes the rule set the document in the body (JSON, or YAML as " +
          "`application/yaml`): the operations its plan lists, in one database transaction, " +
          "keeping the document's ids, with one audit event per object changed. The document's " +
          "`revision` is the precondition: the revision it was planned against (its plan's " +
          "`revision`, or the export's it was edited from). A rule set that has moved since is " +
          "refused (409) and so is a document without a revision or an invalid one (400, every " +
          "error with its JSON path); nothing is written then. Afterwards the export gives the " +
          "document back. Answers the revisions before and after and the counts. Policy: " +
          "ratecard:apply_ruleset.",
        protect: false,
      },
    })
    .input(z.looseObject({}).meta({ description: "A rule set document, as the export gives it" }))
    .output(ZApplyOutput)
    .mutation(({ ctx, input }) => applyRuleSetDocument(ctx.prisma, input, auditOf(ctx))),
});
