import type { PrismaClient } from "@ratecard/db";
import { explainPoint, formatDecimal, priceQuote } from "@ratecard/rating";
import type {
  TExcludedRule,
  TPreviewAnswer,
  TPreviewRequest,
  TQuoteRequest,
  TRuleSetWarning,
} from "@ratecard/validators";
import { quoteMetadata, type ExcludedRule, type RuleSetCache } from "./rating.js";

/**
 * CloudKitty's quote: the total price of the resources with the hashmap rules in force at the
 * moment asked (default now), with no tenant (CloudKitty's quote never applies tenant rules).
 * Pyscripts are stored, not executed, so they add nothing; a disabled hashmap module prices
 * nothing, as in CloudKitty.
 */
export async function quote(
  prisma: PrismaClient,
  ruleSets: RuleSetCache,
  request: TQuoteRequest,
): Promise<string> {
  const { index, hashmapEnabled } = request.at
    ? (await ruleSets.at(prisma, request.at)).compiled
    : await ruleSets.get(prisma);
  if (!hashmapEnabled) return "0";
  const points = request.resources.map((resource) => ({
    service: resource.service,
    volume: resource.volume,
    metadata: quoteMetadata(resource.desc),
  }));
  return formatDecimal(priceQuote(index, points));
}

const momentText = (value: unknown): string | null =>
  typeof value === "string" && value !== "" ? value : null;

type DatedOut = ExcludedRule & { reason: TExcludedRule["reason"] };

/** Left out by its validity period; a deleted rule is simply gone (the deleted-rules view has it). */
const byDates = (excluded: ExcludedRule): excluded is DatedOut => excluded.reason !== "deleted";

function renderExcluded({ kind, rule, reason }: DatedOut): TExcludedRule {
  const object = rule as unknown as Record<string, unknown>;
  return {
    kind,
    rule_id: kind === "mapping" ? String(object.mapping_id) : String(object.threshold_id),
    reason,
    start: momentText(object.start),
    end: momentText(object.end),
  };
}

/**
 * The price of one usage point for one tenant at a moment (default now), with every group's part
 * and the rules that made it, and the service's rules left out by their validity period (not yet
 * started, or ended; deleted rules are not listed).
 */
export async function previewPrice(
  prisma: PrismaClient,
  ruleSets: RuleSetCache,
  request: TPreviewRequest,
): Promise<TPreviewAnswer> {
  const { compiled, at, reconstructed, eventId } = await ruleSets.at(prisma, request.at);
  const breakdown = explainPoint(compiled.index, {
    service: request.service,
    volume: request.volume,
    metadata: request.metadata ?? {},
    tenant: request.tenant_id ?? null,
  });
  const service = compiled.rules.services.find((candidate) => candidate.name === request.service);
  const fieldIds = new Set(
    compiled.rules.fields
      .filter((field) => field.service_id === service?.service_id)
      .map((field) => field.field_id),
  );
  const excluded = service
    ? compiled.excluded
        .filter(byDates)
        .filter(
          ({ rule }) =>
            rule.service_id === service.service_id ||
            (rule.field_id !== null && rule.field_id !== undefined && fieldIds.has(rule.field_id)),
        )
    : [];
  return {
    ...breakdown,
    at: at.toISOString(),
    reconstructed,
    event_id: eventId,
    hashmap_enabled: compiled.hashmapEnabled,
    excluded: excluded.map(renderExcluded),
  };
}

/** Rules that price nothing or that another rule silently beats, optionally for one service or group. */
export async function ruleSetWarnings(
  prisma: PrismaClient,
  ruleSets: RuleSetCache,
  filter: { service_id?: string | undefined; group_id?: string | undefined },
): Promise<TRuleSetWarning[]> {
  const ruleSet = await ruleSets.get(prisma);
  return ruleSet
    .warnings()
    .filter(
      (warning) =>
        (filter.service_id === undefined || warning.service_id === filter.service_id) &&
        (filter.group_id === undefined || warning.group_id === filter.group_id),
    );
}
