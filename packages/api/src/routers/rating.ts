import { z } from "zod";
import { ZPreviewRequest, ZPreviewAnswer, ZQuoteProcedureInput } from "@ratecard/validators";
import { previewPrice, quote } from "../domain/pricing.js";
import { publicProcedure, router } from "../trpc.js";
import { HASHMAP } from "./rest.js";

const tags = ["rating"];

export const ratingRouter = router({
  quote: publicProcedure
    .meta({
      action: true,
      openapi: {
        method: "POST",
        path: "/v1/rating/quote",
        tags,
        summary: "Price resources (CloudKitty's quote)",
        description:
          "The total price of the resources with the hashmap rules, as a JSON number. Each resource's " +
          "metadata is desc.metadata merged with desc.groupby (a desc with neither is the metadata " +
          "itself). Tenant rules never apply (no tenant in a quote); pyscripts are not executed; an " +
          "unknown service prices 0. Ratecard's extension: `at` (ISO 8601, default now) prices with the " +
          "rules in force at that moment; a past moment with the rules as they stood then, rebuilt " +
          "from the audit trail (a moment before the trail's first change is refused with a 400).",
        protect: false,
      },
      bodyName: "res_data",
      decimalAsJsonNumber: true,
    })
    // A quote only reads, but it is a POST with a body (CloudKitty's form), so a mutation.
    // ZQuoteRequest, read without zod when every resource is plainly valid (readPlainQuoteRequest).
    .input(ZQuoteProcedureInput)
    .output(z.string().meta({ description: "The total price (a JSON number over REST)" }))
    .mutation(({ ctx, input }) => quote(ctx.prisma, ctx.ruleSets, input)),

  preview: publicProcedure
    .meta({
      action: true,
      openapi: {
        method: "POST",
        path: `${HASHMAP}/preview`,
        tags,
        summary: "Price one usage point and explain the price",
        description:
          "Per group: the flat and rate values, the threshold applied, the group's price and the " +
          "mappings that matched; then the total. tenant_id applies that tenant's rules over the " +
          "global ones, as CloudKitty's rating does. `at` (ISO 8601, default now) prices at that " +
          "moment: `reconstructed` says the rules were rebuilt from the audit trail, `excluded` lists " +
          "the service's rules left out by their dates.",
        protect: false,
      },
      bodyName: "preview",
    })
    .input(ZPreviewRequest)
    .output(ZPreviewAnswer)
    .query(({ ctx, input }) => previewPrice(ctx.prisma, ctx.ruleSets, input)),
});
