import { z } from "zod";
import { decimalInput, ZRuleType } from "./schemas.js";

// The quote (CloudKitty's POST /v1/rating/quote) and the price preview.

/** A quantity: exact decimal, any sign CloudKitty accepts. */
export const ZVolumeInput = decimalInput({ integerDigits: 28, fractionDigits: 28 });

const ZMetadata = z.record(z.string(), z.unknown());

/**
 * One resource of a quote, as CloudKitty's client sends it. CloudKitty reads the point's metadata
 * from `desc.metadata` merged with `desc.groupby`; a `desc` with neither is taken as the metadata.
 */
export const ZQuoteResource = z.strictObject({
  service: z.string({ error: "Wrong type, expected a string." }).min(1),
  desc: ZMetadata.optional(),
  volume: ZVolumeInput,
});

export const ZQuoteRequest = z.strictObject({ resources: z.array(ZQuoteResource) });
export type TQuoteRequest = z.output<typeof ZQuoteRequest>;

export const ZPreviewRequest = z.strictObject({
  service: z.string({ error: "Wrong type, expected a string." }).min(1),
  volume: ZVolumeInput,
  metadata: ZMetadata.optional(),
  tenant_id: z.string().nullable().optional(),
});
export type TPreviewRequest = z.output<typeof ZPreviewRequest>;

const ZAppliedThreshold = z.object({
  threshold_id: z.string(),
  level: z.string(),
  type: ZRuleType,
  cost: z.string(),
  kind: z.enum(["service", "field"]),
  field_name: z.string().nullable(),
});

export const ZGroupBreakdown = z
  .object({
    group_id: z.string().nullable(),
    group_name: z.string(),
    flat: z.string(),
    rate: z.string(),
    threshold: ZAppliedThreshold.nullable(),
    price: z.string(),
    mapping_ids: z.array(z.string()),
    warnings: z.array(z.string()),
  })
  .meta({ id: "GroupBreakdown" });

export const ZPriceBreakdown = z
  .object({
    service: z.string(),
    tenant: z.string().nullable(),
    service_known: z.boolean(),
    groups: z.array(ZGroupBreakdown),
    total: z.string(),
    warnings: z.array(z.string()),
  })
  .meta({ id: "PriceBreakdown" });
export type TPriceBreakdown = z.infer<typeof ZPriceBreakdown>;

export const ZRuleSetWarning = z
  .object({
    code: z.string(),
    message: z.string(),
    service_id: z.string().nullable(),
    group_id: z.string().nullable(),
    tenant_id: z.string().nullable(),
    rule_ids: z.array(z.string()),
  })
  .meta({ id: "RuleSetWarning" });
export type TRuleSetWarning = z.infer<typeof ZRuleSetWarning>;
