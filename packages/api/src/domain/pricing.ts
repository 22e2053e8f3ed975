import type { PrismaClient } from "@ratecard/db";
import { explainPoint, formatDecimal, priceQuote } from "@ratecard/rating";
import type {
  TPreviewRequest,
  TPriceBreakdown,
  TQuoteRequest,
  TRuleSetWarning,
} from "@ratecard/validators";
import { quoteMetadata, type RuleSetCache } from "./rating.js";

/**
 * CloudKitty's quote: the total price of the resources with the hashmap rules, with no tenant
 * (CloudKitty's quote never applies tenant rules). Pyscripts are stored, not executed, so they add
 * nothing; a disabled hashmap module prices nothing, as in CloudKitty.
 */
export async function quote(
  prisma: PrismaClient,
  ruleSets: RuleSetCache,
  request: TQuoteRequest,
): Promise<string> {
  const { index, hashmapEnabled } = await ruleSets.get(prisma);
  if (!hashmapEnabled) return "0";
  const points = request.resources.map((resource) => ({
    service: resource.service,
    volume: resource.volume,
    metadata: quoteMetadata(resource.desc),
  }));
  return formatDecimal(priceQuote(index, points));
}

/** The price of one usage point for one tenant, with every group's part and the rules that made it. */
export async function previewPrice(
  prisma: PrismaClient,
  ruleSets: RuleSetCache,
  request: TPreviewRequest,
): Promise<TPriceBreakdown> {
  const { index } = await ruleSets.get(prisma);
  return explainPoint(index, {
    service: request.service,
    volume: request.volume,
    metadata: request.metadata ?? {},
    tenant: request.tenant_id ?? null,
  });
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
