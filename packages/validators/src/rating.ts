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

/**
 * The moment to price at (Ratecard's extension): an ISO 8601 date and time with its offset
 * (`2026-11-25T18:00:00Z`), or a date (its midnight UTC). Absent: now.
 */
export const ZPriceMoment = z
  .string({ error: "Wrong type, expected a string." })
  .transform((input, ctx) => {
    const valid =
      /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/.test(
        input,
      );
    const moment = new Date(input);
    // Date() rolls 2026-02-31 over to March 3rd: the day must exist as written.
    const [year, month, day] = input.slice(0, 10).split("-").map(Number) as [
      number,
      number,
      number,
    ];
    const calendar = new Date(Date.UTC(year, month - 1, day));
    const realDay = calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day;
    if (valid && realDay && !Number.isNaN(moment.getTime())) return moment;
    ctx.addIssue({
      code: "custom",
      message: "Expected an ISO 8601 date, or a date and time with its offset.",
      input,
    });
    return z.NEVER;
  })
  .meta({
    description:
      "Price with the rules in force at this moment (ISO 8601, default now). A past moment is " +
      "priced with the rules as they stood then, rebuilt from the audit trail.",
  });

export const ZQuoteRequest = z.strictObject({
  resources: z.array(ZQuoteResource),
  at: ZPriceMoment.optional(),
});
export type TQuoteRequest = z.output<typeof ZQuoteRequest>;

export const ZPreviewRequest = z.strictObject({
  service: z.string({ error: "Wrong type, expected a string." }).min(1),
  volume: ZVolumeInput,
  metadata: ZMetadata.optional(),
  tenant_id: z.string().nullable().optional(),
  at: ZPriceMoment.optional(),
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

/** A rule left out of a price because of its dates at the moment priced. */
export const ZExcludedRule = z
  .object({
    kind: z.enum(["mapping", "threshold"]),
    rule_id: z.string(),
    reason: z.enum(["not_started", "ended"]),
    /** As the rule shows them (UTC, CloudKitty's form). */
    start: z.string().nullable(),
    end: z.string().nullable(),
  })
  .meta({ id: "ExcludedRule" });
export type TExcludedRule = z.infer<typeof ZExcludedRule>;

/** The preview: the breakdown, and which rules it was computed with. */
export const ZPreviewAnswer = ZPriceBreakdown.extend({
  /** The moment priced (UTC). */
  at: z.string(),
  /** True when the rules are those of a past moment, rebuilt from the audit trail. */
  reconstructed: z.boolean(),
  /** The newest audit event those rules include (null: the present rules). */
  event_id: z.number().int().nullable(),
  /** Whether the hashmap module was enabled at that moment (disabled: CloudKitty charges 0). */
  hashmap_enabled: z.boolean(),
  /** The service's rules not in force at that moment because of their dates. */
  excluded: z.array(ZExcludedRule),
}).meta({ id: "PreviewAnswer" });
export type TPreviewAnswer = z.infer<typeof ZPreviewAnswer>;

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
