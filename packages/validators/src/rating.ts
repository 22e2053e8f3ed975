import { z } from "zod";
import { parseDecimal } from "./decimal.js";
import { decimalInput, ZRuleType } from "./schemas.js";

// The quote (CloudKitty's POST /v1/rating/quote) and the price preview.

const VOLUME_PRECISION = { integerDigits: 28, fractionDigits: 28 };
/** A quantity: exact decimal, any sign CloudKitty accepts. */
export const ZVolumeInput = decimalInput(VOLUME_PRECISION);

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

/**
 * A quote whose every resource is plainly valid (a plain object with a non-empty `service`, a
 * plain-object `desc` or none, a decimal `volume` and nothing else) read without zod: zod's
 * object, record, union and transform for each of a thousand resources allocated 1.5 MiB per
 * quote, enough to carry its garbage into the old generation, and took a third of the quote's
 * time. Returns undefined for anything else; zod then reads it and words its issues. The result
 * is zod's (a test compares them on generated requests).
 */
export function readPlainQuoteRequest(input: unknown): TQuoteRequest | undefined {
  if (!isPlainObject(input)) return undefined;
  let resources: unknown;
  let at: Date | undefined;
  for (const key in input) {
    if (key === "resources") resources = input[key];
    else if (key === "at") {
      const moment = ZPriceMoment.safeParse(input[key]);
      if (!moment.success) return undefined;
      at = moment.data;
    } else return undefined;
  }
  if (!Array.isArray(resources)) return undefined;
  const read: QuoteResource[] = [];
  for (const item of resources) {
    const resource = readPlainResource(item);
    if (resource === undefined) return undefined;
    read.push(resource);
  }
  return at === undefined ? { resources: read } : { resources: read, at };
}

type QuoteResource = TQuoteRequest["resources"][number];

function readPlainResource(resource: unknown): QuoteResource | undefined {
  if (!isPlainObject(resource)) return undefined;
  let service: unknown;
  let desc: unknown;
  let volume: unknown;
  let hasDesc = false;
  for (const key in resource) {
    if (key === "service") service = resource[key];
    else if (key === "volume") volume = resource[key];
    else if (key === "desc") {
      desc = resource[key];
      hasDesc = true;
    } else return undefined;
  }
  if (typeof service !== "string" || service.length === 0) return undefined;
  if (typeof volume !== "string" && !(typeof volume === "number" && Number.isFinite(volume))) {
    return undefined;
  }
  const quantity = parseDecimal(volume, VOLUME_PRECISION);
  if (!quantity.ok) return undefined;
  if (!hasDesc) return { service, volume: quantity.value };
  // zod's record drops a `__proto__` member; such a rare body takes zod's way.
  if (!isPlainObject(desc) || Object.hasOwn(desc, "__proto__")) return undefined;
  return { service, desc, volume: quantity.value };
}

/** A JSON object: what JSON.parse makes, with only its own enumerable members. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) if (!Object.hasOwn(value, key)) return false;
  return Object.getOwnPropertySymbols(value).length === 0;
}

/**
 * The quote procedure's input: a copy of ZQuoteRequest (the same shape, issues and OpenAPI
 * description) whose `parseAsync`, the method tRPC reads a procedure's input with, tries
 * readPlainQuoteRequest first and hands zod only what that leaves. ZQuoteRequest itself stays as
 * zod made it.
 */
export const ZQuoteProcedureInput: typeof ZQuoteRequest = (() => {
  const input = ZQuoteRequest.clone();
  const parseWithZod = input.parseAsync.bind(input);
  input.parseAsync = (value, params) =>
    Promise.resolve(readPlainQuoteRequest(value) ?? parseWithZod(value, params));
  return input;
})();

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
