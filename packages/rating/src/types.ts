/** The rule objects exactly as the hashmap REST API shows them. Costs and levels are decimal strings. */

export type RuleType = "flat" | "rate";

export interface HashmapService {
  service_id: string;
  name: string;
}

export interface HashmapField {
  field_id: string;
  name: string;
  service_id: string;
}

export interface HashmapGroup {
  group_id: string;
  name: string;
}

export interface HashmapMapping {
  mapping_id: string;
  value?: string | null;
  type: RuleType;
  cost: string;
  service_id?: string | null;
  field_id?: string | null;
  group_id?: string | null;
  tenant_id?: string | null;
}

export interface HashmapThreshold {
  threshold_id: string;
  level: string;
  type: RuleType;
  cost: string;
  service_id?: string | null;
  field_id?: string | null;
  group_id?: string | null;
  tenant_id?: string | null;
}

/**
 * A whole hashmap configuration. Array order is load order: give rows in
 * creation order, as CloudKitty's unordered SELECTs return them, because the
 * last rule loaded into a slot wins.
 */
export interface HashmapRuleSet {
  services: readonly HashmapService[];
  fields: readonly HashmapField[];
  groups: readonly HashmapGroup[];
  mappings: readonly HashmapMapping[];
  thresholds: readonly HashmapThreshold[];
}

/** One usage point to price, as a quote describes it. */
export interface UsagePoint {
  service: string;
  /** Quantity as a decimal string (Python Decimal() syntax, finite). */
  volume: string;
  /** Metadata and groupby attributes merged, as CloudKitty's `desc`. */
  metadata?: Readonly<Record<string, unknown>>;
  /** The rated project; tenant-scoped rules apply only to it. */
  tenant?: string | null;
}

export type RuleScope = "service" | "field";

export interface AppliedThreshold {
  threshold_id: string;
  level: string;
  type: RuleType;
  cost: string;
  kind: RuleScope;
  /** The field whose metadata value reached the level; null for a service threshold. */
  field_name: string | null;
}

export interface GroupBreakdown {
  /** null for the default group (rules without a group). */
  group_id: string | null;
  group_name: string;
  /** Highest matching flat mapping cost, before any threshold ("0" if none). */
  flat: string;
  /** Product of the matching rate mappings, before any threshold ("1" if none). */
  rate: string;
  threshold: AppliedThreshold | null;
  price: string;
  /** Mappings that matched, in the order they were applied. */
  mapping_ids: string[];
  /** Rules that lost their slot to a rule that applied here, and threshold ties. */
  warnings: string[];
}

export interface PointBreakdown {
  service: string;
  tenant: string | null;
  /** False when no hashmap service has this name: the price is 0. */
  service_known: boolean;
  /** In CloudKitty's order: the order in which rules first touched each group. */
  groups: GroupBreakdown[];
  total: string;
  /** Point-level notes, e.g. metadata a field threshold could not read as a number. */
  warnings: string[];
}
