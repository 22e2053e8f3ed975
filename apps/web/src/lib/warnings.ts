import type {
  TAcknowledgeableWarning,
  TRuleSetWarning,
  TRuleWarningRef,
  TScopedWarning,
  TWarningAcknowledgement,
} from "@ratecard/validators";
import { describeRule, type ExplorerSearch, type RuleLookups, type RuleRow } from "./rules";

// The API's rule-set warnings (hashmap.warnings) in words for operators: what the trap is, where it
// is, and which rules are involved, looked up by id so the console can name and link them.

export interface WarningRule {
  id: string;
  /** What the rule does in this trap ("applies for tenant acme"); absent when all rules play the same part. */
  role?: string;
  /** Absent when the rule is not among the rules the page loaded. */
  row?: RuleRow;
}

export interface WarningDescription {
  code: string;
  title: string;
  explanation: string;
  service: { id: string; name: string } | null;
  /** id null: the default group (rules without a group). */
  group: { id: string | null; name: string };
  tenant: string | null;
  /** The rules named; with `ruleCount`, only the first ones of those involved. */
  rules: WarningRule[];
  /** How many rules the warning involves, when `rules` names only the first (console.warnings). */
  ruleCount?: number;
  /** The explorer's filters for all its rules, as the server found them (console.warnings). */
  explorer?: ExplorerFilters;
  /** The API's key for the warning (what an acknowledgement names), when the answer has one. */
  key?: string;
  /** The rules involved as they are now, which an acknowledgement sends back. */
  fingerprint?: string;
  acknowledgement?: TWarningAcknowledgement | null;
}

export const DEFAULT_GROUP_LABEL = "the default group";

function groupPhrase(groupId: string | null, groupName: string): string {
  return groupId === null ? DEFAULT_GROUP_LABEL : `group “${groupName}”`;
}

const capitalise = (text: string) => (text ? `${text[0]!.toUpperCase()}${text.slice(1)}` : text);

function wording(
  warning: TRuleSetWarning,
  group: string,
): { title: string; explanation: string; roles?: string[] } {
  const tenant = warning.tenant_id;
  const forTenant = tenant === null ? "" : ` for tenant ${tenant}`;
  switch (warning.code) {
    case "rate-without-flat":
      return {
        title: `${capitalise(group)} prices 0${forTenant}`,
        explanation:
          "It has rate rules but no flat price: a rate multiplies the group's flat price, and there is none to multiply. " +
          "Add a flat mapping to this group, or move the rate rules into the group that holds the flat price.",
        roles: warning.rule_ids.map(() => "rate rule"),
      };
    case "tenant-overrides-global":
      return {
        title: `Tenant ${tenant ?? ""}'s rule replaces a global rule in ${group}`,
        explanation: `For tenant ${tenant ?? ""}, its own rule takes the place of the global one: it is an override, not an extra charge. Every other tenant still gets the global rule.`,
        roles: [`applies for tenant ${tenant ?? ""}`, `replaced for tenant ${tenant ?? ""}`],
      };
    case "slot-replaced":
      return {
        title: `Only one of these rules applies in ${group}${forTenant}`,
        explanation:
          "They take the same place (one service mapping per group, one mapping per field value, one threshold per level), " +
          "so the rule created later replaces the other.",
        roles: ["applies", "never applies"],
      };
    case "flats-do-not-add":
      return {
        title: `Flat prices in ${group} do not add up${forTenant}`,
        explanation:
          "When several flat mappings match one usage in the same group, only the most expensive one counts. " +
          "Put them in different groups to charge them together.",
      };
    case "thresholds-compete":
      return {
        title: `Thresholds in ${group} compete for one place${forTenant}`,
        explanation:
          "Only one threshold per group applies, the one with the highest level reached, although these thresholds " +
          "measure different things (the quantity, or a metadata value).",
      };
    case "flat-never-applies":
      return {
        title: `A negative flat price in ${group} never applies`,
        explanation:
          "A flat mapping only counts when it is above its group's flat price, which starts at 0. Use a rate below 1 for a discount.",
      };
    case "threshold-never-applies":
      return {
        title: `A threshold in ${group} at level -1 or below never applies`,
        explanation:
          "A group's threshold place starts at level -1, and only a higher level takes it.",
      };
    case "group-named-default":
      return {
        title: `${capitalise(group)} is named _DEFAULT_`,
        explanation:
          "CloudKitty tells groups apart by name and puts the rules without a group in a group named _DEFAULT_, " +
          "so this group's rules compete with them. Rename the group.",
      };
    default:
      return { title: warning.code, explanation: warning.message };
  }
}

export function describeWarning(
  warning: TRuleSetWarning &
    Partial<TAcknowledgeableWarning> &
    Partial<Pick<TScopedWarning, "rule_count" | "explorer">>,
  lookups: RuleLookups,
  rulesById: ReadonlyMap<string, RuleRow>,
): WarningDescription {
  const groupName =
    warning.group_id === null
      ? DEFAULT_GROUP_LABEL
      : (lookups.groups.find((group) => group.group_id === warning.group_id)?.name ??
        warning.group_id);
  const service = warning.service_id
    ? {
        id: warning.service_id,
        name:
          lookups.services.find((candidate) => candidate.service_id === warning.service_id)?.name ??
          warning.service_id,
      }
    : null;
  const { title, explanation, roles } = wording(warning, groupPhrase(warning.group_id, groupName));
  const rules = warning.rule_ids.map((id, index): WarningRule => {
    const row = rulesById.get(id);
    const role = roles?.[index];
    return { id, ...(role && { role }), ...(row && { row }) };
  });
  return {
    code: warning.code,
    title,
    explanation: replacesFlatWithRate(warning, rules)
      ? `${explanation} Here a rate rule replaces a flat one, so unless another flat price matches, the tenant's rates have nothing to multiply and this group prices 0 for it.`
      : explanation,
    service,
    group: { id: warning.group_id, name: groupName },
    tenant: warning.tenant_id,
    rules,
    ...(warning.rule_count !== undefined && { ruleCount: warning.rule_count }),
    ...(warning.explorer !== undefined && { explorer: warning.explorer }),
    ...(warning.warning_key !== undefined && { key: warning.warning_key }),
    ...(warning.fingerprint !== undefined && { fingerprint: warning.fingerprint }),
    ...(warning.acknowledgement !== undefined && { acknowledgement: warning.acknowledgement }),
  };
}

/** CloudKitty's sharpest tenant trap: a tenant's rate service mapping takes the global flat one's place. */
function replacesFlatWithRate(warning: TRuleSetWarning, rules: WarningRule[]): boolean {
  const [applies, replaced] = rules;
  return (
    warning.code === "tenant-overrides-global" &&
    applies?.row?.type === "rate" &&
    replaced?.row?.type === "flat"
  );
}

/** The traps that change prices most first: zeros and overrides, then rules that never count. */
const SEVERITY = [
  "rate-without-flat",
  "tenant-overrides-global",
  "slot-replaced",
  "flat-never-applies",
  "threshold-never-applies",
  "flats-do-not-add",
  "thresholds-compete",
  "group-named-default",
];

export function bySeverity<Warning extends { code: string }>(
  warnings: readonly Warning[],
): Warning[] {
  const rank = (code: string) => {
    const index = SEVERITY.indexOf(code);
    return index === -1 ? SEVERITY.length : index;
  };
  return [...warnings].sort((left, right) => rank(left.code) - rank(right.code));
}

/** "the flat service mapping on volume for tenant acme (cost 0.002)" */
export function ruleSummary(row: RuleRow): string {
  return `${describeRule(row)} (cost ${row.cost})`;
}

const UUID_PATTERN = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const UUID = new RegExp(UUID_PATTERN, "gi");
/** The engine follows a rule's id with its own short description: "(service mapping <id>)". */
const ID_DESCRIPTION = new RegExp(
  ` \\((?:service|field [^()]*?) (?:mapping|threshold) (${UUID_PATTERN})[^()]*\\)`,
  "gi",
);

/** The engine's notes name rules by id; names the ones the page knows, in words. */
export function nameRulesInText(text: string, rulesById: ReadonlyMap<string, RuleRow>): string {
  return text
    .replace(ID_DESCRIPTION, (description, id: string) => (rulesById.has(id) ? "" : description))
    .replace(UUID, (id) => {
      const row = rulesById.get(id);
      return row ? `“${ruleSummary(row)}”` : id;
    });
}

/** How many rules a warning names before it sums up the rest. */
export const RULES_SHOWN = 5;

export interface RulesSummary {
  /** How many rules the warning involves. */
  total: number;
  /** The first rules, named and linked. */
  shown: WarningRule[];
  /** How many more the warning involves. */
  hidden: number;
  /** The rules explorer's filters that include every rule of the warning; null when all are shown. */
  explorer: ExplorerFilters | null;
}

export type ExplorerFilters = Pick<
  ExplorerSearch,
  "kind" | "service_id" | "field_id" | "group_id" | "no_group" | "tenant_id" | "no_tenant" | "type"
>;

/**
 * A warning about 525 rules names the first few and links to the rest: listing them all made a
 * page 11,736 px tall and took a keyboard user ~535 Tab presses to pass.
 */
export function summarizeRules(
  warning: WarningDescription,
  limit: number = RULES_SHOWN,
): RulesSummary {
  const { rules } = warning;
  const total = warning.ruleCount ?? rules.length;
  const shown = rules.slice(0, limit);
  if (total <= shown.length) return { total, shown, hidden: 0, explorer: null };
  return {
    total,
    shown,
    hidden: total - shown.length,
    explorer: warning.explorer ?? explorerFiltersFor(warning),
  };
}

function shared<T>(values: readonly T[]): T | undefined {
  const [first] = values;
  return values.length > 0 && values.every((value) => value === first) ? first : undefined;
}

/**
 * The narrowest explorer filters that still include every rule of the warning: what the rules
 * share (kind, parent, type, tenant) and the warning's group. The explorer cannot filter by rule
 * ids, so when the rules share less than the warning's scope the list holds a few more rules.
 */
export function explorerFiltersFor(warning: WarningDescription): ExplorerFilters {
  const rows = warning.rules.flatMap((rule) => (rule.row ? [rule.row] : []));
  // Rules the page did not load could be anything: only the warning's own scope holds for them.
  const known = rows.length === warning.rules.length ? rows : [];
  const kind = shared(known.map((row) => row.kind));
  const fieldId = shared(known.map((row) => row.fieldId));
  const serviceOnly = known.length > 0 && known.every((row) => row.fieldId === null);
  const serviceId = serviceOnly ? shared(known.map((row) => row.serviceId)) : undefined;
  const type = shared(known.map((row) => row.type));
  // Mixed in a tenant override (the tenant's rule and the global one it replaces): no filter.
  const tenant = shared(known.map((row) => row.tenant));
  return {
    ...(kind && { kind: kind === "mapping" ? "mappings" : "thresholds" }),
    ...(fieldId ? { field_id: fieldId } : serviceId ? { service_id: serviceId } : {}),
    ...(warning.group.id === null ? { no_group: true } : { group_id: warning.group.id }),
    ...(tenant === "" ? { no_tenant: true } : tenant ? { tenant_id: tenant } : {}),
    ...(type && { type }),
  };
}

// ------------------------------------------------------------------ acknowledgements and badges

/** Acknowledged: an operator marked it intended, and no rule involved changed since. */
export function isAcknowledged(warning: {
  acknowledgement?: TWarningAcknowledgement | null | undefined;
}): boolean {
  return Boolean(warning.acknowledgement && !warning.acknowledgement.reopened);
}

/** The warnings still to look at, and those marked intended (shown collapsed, with their notes). */
export function splitAcknowledged<
  Warning extends { acknowledgement?: TWarningAcknowledgement | null },
>(warnings: readonly Warning[]): { open: Warning[]; acknowledged: Warning[] } {
  const open: Warning[] = [];
  const acknowledged: Warning[] = [];
  for (const warning of warnings) (isAcknowledged(warning) ? acknowledged : open).push(warning);
  return { open, acknowledged };
}

/** The element id of a warning in the warnings panel, which badges link to (`#warning-…`). */
export function warningAnchor(key: string): string {
  return `warning-${key.slice(0, 16)}`;
}

/** The key a `#warning-…` address names, among the warnings shown. */
export function warningKeyOfAnchor(
  hash: string,
  keys: Iterable<string | undefined>,
): string | undefined {
  const anchor = hash.replace(/^#/, "");
  if (!anchor.startsWith("warning-")) return undefined;
  for (const key of keys) if (key && warningAnchor(key) === anchor) return key;
  return undefined;
}

/** "admin, 25 Nov 2026, 21:10": who acknowledged and when, in the operator's locale. */
export function acknowledgedBy(acknowledgement: TWarningAcknowledgement, locale?: string): string {
  const when = new Date(acknowledgement.at).toLocaleString(locale, {
    dateStyle: "medium",
    timeStyle: "short",
  });
  return `${acknowledgement.user_name ?? "someone"}, ${when}`;
}

/** What a rule's row says about the warnings that involve it. */
export interface RuleWarningBadge {
  /** Warnings still open (reopened ones included). */
  open: number;
  acknowledged: number;
  /** The warning the badge links to: the most severe open one, else the first acknowledged. */
  target: Pick<TAcknowledgeableWarning, "warning_key" | "code" | "service_id" | "group_id">;
  /** The codes of the warnings involved, most severe first (for the badge's accessible name). */
  codes: string[];
}

/**
 * A row's badge from the warnings console.rules names with it (`warnings: true`): the page then
 * needs no warnings answer listing every rule each warning involves.
 */
export function warningBadgeOf(
  references: readonly TRuleWarningRef[] | undefined,
): RuleWarningBadge | undefined {
  let badge: RuleWarningBadge | undefined;
  for (const reference of bySeverity(references ?? [])) {
    badge ??= { open: 0, acknowledged: 0, target: reference, codes: [] };
    if (reference.acknowledged) badge.acknowledged += 1;
    else {
      if (badge.open === 0) badge.target = reference;
      badge.open += 1;
    }
    badge.codes.push(reference.code);
  }
  return badge;
}

/** "2 pricing warnings, 1 acknowledged": the accessible name of a row's badge. */
export function badgeLabel(badge: Pick<RuleWarningBadge, "open" | "acknowledged">): string {
  const parts: string[] = [];
  if (badge.open > 0)
    parts.push(badge.open === 1 ? "1 pricing warning" : `${badge.open} pricing warnings`);
  if (badge.acknowledged > 0)
    parts.push(
      badge.open > 0
        ? `${badge.acknowledged} acknowledged`
        : badge.acknowledged === 1
          ? "1 acknowledged pricing warning"
          : `${badge.acknowledged} acknowledged pricing warnings`,
    );
  return parts.join(", ");
}
