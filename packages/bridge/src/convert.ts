import {
  toPlainDecimal,
  type CkMapping,
  type CkThreshold,
  type CloudKittyRuleSet,
} from "@ratecard/cloudkitty";
import {
  canonicalCost,
  canonicalizeRuleSet,
  canonicalLevel,
  RULESET_FORMAT,
  RULESET_VERSION,
  validateRuleSet,
  type RuleSetDocument,
  type RuleSetField,
  type RuleSetMapping,
  type RuleSetService,
  type RuleSetThreshold,
} from "@ratecard/ruleset";
import { formatMoment, momentMillis } from "./moments.js";

/*
 * A CloudKitty rule set (what CloudKittyClient.readRuleSet returns) as a Ratecard rule-set
 * document, keeping CloudKitty's ids, and a report of everything Ratecard cannot hold as
 * CloudKitty does. Nothing is dropped without an entry in the report.
 */

/** Ratecard's rating modules (a fixed set, seeded by the first migration). */
export const RATECARD_MODULES: readonly string[] = ["hashmap", "noop", "pyscripts"];

export type RuleKind = "mapping" | "threshold";

/**
 * Two or more CloudKitty rules with the same parent, value (or level), tenant and group. CloudKitty
 * accepts them (SQL NULLs compare distinct) and prices with whichever it loads last; Ratecard
 * refuses such duplicates, so one is imported (`kept`) and the others are not (`dropped`).
 */
export interface DuplicateRule {
  kind: RuleKind;
  /** Where the rules are: "compute", "compute/flavor". */
  parent: string;
  /** The value (mappings) or level (thresholds) they share; null for a service mapping. */
  key: string | null;
  tenant_id: string | null;
  group_id: string | null;
  kept: { id: string; cost: string; type: string };
  dropped: { id: string; cost: string; type: string }[];
  /** Whether the duplicates price differently (then billing depended on CloudKitty's load order). */
  costsDiffer: boolean;
}

/** An object not imported, and why. */
export interface SkippedObject {
  kind: "module" | "group" | "service" | "field" | RuleKind | "script";
  id: string;
  /** Where it is, by names: "compute/flavor", "module noop". */
  where: string;
  reason: string;
}

/**
 * A cost CloudKitty holds as a binary double's expansion (a CloudKitty on SQLite): imported
 * exactly as CloudKitty holds it, which is what it bills with; `likely` is the shortest decimal
 * that double stands for, probably what was typed.
 */
export interface DoubleArtifact {
  kind: RuleKind;
  id: string;
  where: string;
  attribute: "cost" | "level";
  imported: string;
  likely: string;
}

export interface ImportReport {
  /** How many of each kind the document holds. */
  counts: Record<
    "modules" | "groups" | "services" | "fields" | "mappings" | "thresholds" | "scripts",
    number
  >;
  duplicates: DuplicateRule[];
  skipped: SkippedObject[];
  doubles: DoubleArtifact[];
  /** Anything else worth telling (lifecycle dates on a CloudKitty 23+, ...). */
  notes: string[];
  /** With `lifecycle`: the rules another one follows (see ConvertOptions.lifecycle). */
  superseded?: SupersededRule[];
}

export interface Conversion {
  document: RuleSetDocument;
  report: ImportReport;
}

export interface ConvertOptions {
  /** The module ids Ratecard has; others are reported and left out. */
  modules?: readonly string[];
  /** The document's revision (""). */
  revision?: string;
  /**
   * Keep CloudKitty 23+'s validity dates and descriptions on mappings and scripts (a 23+ target's
   * plan and drift; an import leaves them out and says so). A rule that another rule of the same
   * parent, value, tenant and group follows (its end at or before the next one's start: how a
   * price change is written to CloudKitty 23, "end the old rule at T, start the new one at T") is
   * that rule's past: it is listed in `superseded` instead of the document, not as a duplicate.
   */
  lifecycle?: boolean;
}

/** A CloudKitty 23+ rule that a later rule of the same key follows (kept by CloudKitty as history). */
export interface SupersededRule {
  kind: "mapping";
  id: string;
  where: string;
  start: string | null;
  end: string | null;
  /** The rule that follows it. */
  by: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Code-unit order, as the document's own. */
const compareText = (a: string, b: string) => (a === b ? 0 : a < b ? -1 : 1);

/**
 * A double's expansion has 17 or more significant digits while the double itself prints in at most
 * 15; such text is almost surely a decimal that went through a float.
 */
function likelyDouble(text: string): string | undefined {
  const plain = toPlainDecimal(text);
  const significant = plain.replace(/^-/, "").replace(".", "").replace(/^0+/, "");
  if (significant.length < 17) return undefined;
  const value = Number(plain);
  if (!Number.isFinite(value)) return undefined;
  const shortest = toPlainDecimal(String(value));
  const shortDigits = shortest.replace(/^-/, "").replace(".", "").replace(/^0+/, "");
  return shortDigits.length <= 15 ? shortest : undefined;
}

export function convertRuleSet(
  source: CloudKittyRuleSet,
  options: ConvertOptions = {},
): Conversion {
  const known = new Set(options.modules ?? RATECARD_MODULES);
  const report: ImportReport = {
    counts: {
      modules: 0,
      groups: 0,
      services: 0,
      fields: 0,
      mappings: 0,
      thresholds: 0,
      scripts: 0,
    },
    duplicates: [],
    skipped: [],
    doubles: [],
    notes: [],
  };
  const skip = (entry: SkippedObject) => report.skipped.push(entry);
  const withLifecycle = options.lifecycle ?? false;
  if (withLifecycle) report.superseded = [];
  /** A CloudKitty moment as milliseconds (its text is UTC without an offset); null: none. */
  const millis = momentMillis;
  const lifecycleOf = (rule: {
    start?: string | null | undefined;
    end?: string | null | undefined;
    description?: string | null | undefined;
  }) => {
    if (!withLifecycle) return {};
    const start = millis(rule.start);
    const end = millis(rule.end);
    return {
      ...(start === null ? {} : { start: formatMoment(start) }),
      end: end === null ? null : formatMoment(end),
      description: rule.description && rule.description.length <= 256 ? rule.description : null,
    };
  };

  const modules = [];
  for (const module of source.modules) {
    if (!known.has(module.module_id)) {
      skip({
        kind: "module",
        id: module.module_id,
        where: `module ${module.module_id}`,
        reason: `Ratecard has no rating module ${JSON.stringify(module.module_id)} (it has ${[...known].join(", ")})`,
      });
      continue;
    }
    modules.push({ id: module.module_id, enabled: module.enabled, priority: module.priority });
  }

  const groups = [];
  const groupIds = new Set<string>();
  const groupNames = new Map<string, string>();
  for (const group of source.groups) {
    if (!UUID.test(group.group_id)) {
      skip({
        kind: "group",
        id: group.group_id,
        where: `group ${group.name}`,
        reason: "its id is not a UUID",
      });
      continue;
    }
    if (!group.name) {
      skip({
        kind: "group",
        id: group.group_id,
        where: "group (no name)",
        reason: "a group needs a name",
      });
      continue;
    }
    const other = groupNames.get(group.name);
    if (other) {
      skip({
        kind: "group",
        id: group.group_id,
        where: `group ${group.name}`,
        reason: `the same name as group ${other}`,
      });
      continue;
    }
    groupNames.set(group.name, group.group_id);
    const id = group.group_id.toLowerCase();
    groupIds.add(id);
    groups.push({ id, name: group.name });
  }

  let lifecycle = 0;
  const noteLifecycle = (rule: {
    start?: string | null | undefined;
    end?: string | null | undefined;
  }) => {
    if (rule.start || rule.end) lifecycle++;
  };

  /** The rule's group, or the reason it cannot be imported. */
  const groupOf = (
    groupId: string | null,
  ): { ok: true; id: string | null } | { ok: false; reason: string } => {
    if (groupId === null || groupId === "") return { ok: true, id: null };
    const id = groupId.toLowerCase();
    return groupIds.has(id)
      ? { ok: true, id }
      : { ok: false, reason: `its group ${groupId} is not among the imported groups` };
  };
  const tenantOf = (tenant: string | null) => (tenant === "" ? null : tenant);

  const cost = (kind: RuleKind, id: string, where: string, text: string) => {
    const result = canonicalCost(toPlainDecimal(text));
    if (!result.ok) return result;
    const likely = likelyDouble(text);
    if (likely !== undefined && likely !== result.value) {
      report.doubles.push({ kind, id, where, attribute: "cost", imported: result.value, likely });
    }
    return result;
  };

  const mappings = (all: CkMapping[], where: string, isField: boolean): RuleSetMapping[] => {
    const out: RuleSetMapping[] = [];
    const byKey = new Map<string, { kept: RuleSetMapping; dropped: RuleSetMapping[] }>();
    const rules = withLifecycle ? withoutSuperseded(all, where) : all;
    for (const rule of rules) {
      const refuse = (reason: string) =>
        skip({ kind: "mapping", id: rule.mapping_id, where, reason });
      if (!UUID.test(rule.mapping_id)) {
        refuse("its id is not a UUID");
        continue;
      }
      noteLifecycle(rule);
      if (isField && !rule.value) {
        refuse(
          "a field mapping without a value matches nothing in Ratecard (CloudKitty reads it as an empty value)",
        );
        continue;
      }
      if (!isField && rule.value) {
        refuse(
          `a service mapping with a value (${JSON.stringify(rule.value)}): Ratecard's service mappings price the whole service`,
        );
        continue;
      }
      const group = groupOf(rule.group_id);
      if (!group.ok) {
        refuse(group.reason);
        continue;
      }
      const price = cost("mapping", rule.mapping_id, where, rule.cost);
      if (!price.ok) {
        refuse(`cost ${rule.cost}: ${price.reason}`);
        continue;
      }
      const mapping: RuleSetMapping = {
        id: rule.mapping_id.toLowerCase(),
        value: isField ? rule.value : null,
        type: rule.type,
        cost: price.value,
        tenant_id: tenantOf(rule.tenant_id),
        group_id: group.id,
        ...lifecycleOf(rule),
      };
      const key = JSON.stringify([
        mapping.value ?? "",
        mapping.tenant_id ?? "",
        mapping.group_id ?? "",
      ]);
      const same = byKey.get(key);
      if (same) same.dropped.push(mapping);
      else {
        byKey.set(key, { kept: mapping, dropped: [] });
        out.push(mapping);
      }
    }
    for (const { kept, dropped } of byKey.values()) {
      if (dropped.length === 0) continue;
      report.duplicates.push(duplicate("mapping", where, kept.value, kept, dropped));
    }
    return out;
  };

  /**
   * The mappings of one parent without those a later one of the same key follows: by key, in order
   * of start, a rule whose end is at or before the next one's start is that one's past.
   */
  const withoutSuperseded = (rules: CkMapping[], where: string): CkMapping[] => {
    const byKey = new Map<string, CkMapping[]>();
    for (const rule of rules) {
      const key = JSON.stringify([
        rule.value ?? "",
        tenantOf(rule.tenant_id) ?? "",
        (rule.group_id ?? "").toLowerCase(),
      ]);
      byKey.set(key, [...(byKey.get(key) ?? []), rule]);
    }
    const past = new Set<CkMapping>();
    for (const chain of byKey.values()) {
      if (chain.length < 2) continue;
      chain.sort((a, b) => (millis(a.start) ?? 0) - (millis(b.start) ?? 0));
      for (let i = 0; i + 1 < chain.length; i++) {
        const end = millis(chain[i]!.end);
        const next = chain[i + 1]!;
        if (end !== null && end <= (millis(next.start) ?? 0)) {
          past.add(chain[i]!);
          report.superseded!.push({
            kind: "mapping",
            id: chain[i]!.mapping_id.toLowerCase(),
            where,
            start: chain[i]!.start ?? null,
            end: chain[i]!.end ?? null,
            by: next.mapping_id.toLowerCase(),
          });
        }
      }
    }
    return rules.filter((rule) => !past.has(rule));
  };

  const thresholds = (rules: CkThreshold[], where: string): RuleSetThreshold[] => {
    const out: RuleSetThreshold[] = [];
    const byKey = new Map<string, { kept: RuleSetThreshold; dropped: RuleSetThreshold[] }>();
    for (const rule of rules) {
      const refuse = (reason: string) =>
        skip({ kind: "threshold", id: rule.threshold_id, where, reason });
      if (!UUID.test(rule.threshold_id)) {
        refuse("its id is not a UUID");
        continue;
      }
      noteLifecycle(rule);
      const group = groupOf(rule.group_id);
      if (!group.ok) {
        refuse(group.reason);
        continue;
      }
      const level = canonicalLevel(toPlainDecimal(rule.level));
      if (!level.ok) {
        refuse(`level ${rule.level}: ${level.reason}`);
        continue;
      }
      const price = cost("threshold", rule.threshold_id, where, rule.cost);
      if (!price.ok) {
        refuse(`cost ${rule.cost}: ${price.reason}`);
        continue;
      }
      const threshold: RuleSetThreshold = {
        id: rule.threshold_id.toLowerCase(),
        level: level.value,
        type: rule.type,
        cost: price.value,
        tenant_id: tenantOf(rule.tenant_id),
        group_id: group.id,
      };
      const key = JSON.stringify([
        threshold.level,
        threshold.tenant_id ?? "",
        threshold.group_id ?? "",
      ]);
      const same = byKey.get(key);
      if (same) same.dropped.push(threshold);
      else {
        byKey.set(key, { kept: threshold, dropped: [] });
        out.push(threshold);
      }
    }
    for (const { kept, dropped } of byKey.values()) {
      if (dropped.length === 0) continue;
      report.duplicates.push(duplicate("threshold", where, kept.level, kept, dropped));
    }
    return out;
  };

  const services: RuleSetService[] = [];
  const serviceNames = new Map<string, string>();
  for (const service of source.services) {
    const where = service.name || service.service_id;
    const refuseTree = (reason: string) => {
      skip({ kind: "service", id: service.service_id, where, reason });
      const count =
        service.mappings.length +
        service.thresholds.length +
        service.fields.reduce((n, f) => n + 1 + f.mappings.length + f.thresholds.length, 0);
      if (count > 0)
        report.notes.push(`service ${where} was not imported with its ${count} fields and rules`);
    };
    if (!UUID.test(service.service_id)) {
      refuseTree("its id is not a UUID");
      continue;
    }
    if (!service.name) {
      refuseTree("a service needs a name");
      continue;
    }
    const other = serviceNames.get(service.name);
    if (other) {
      refuseTree(`the same name as service ${other}`);
      continue;
    }
    serviceNames.set(service.name, service.service_id);
    const fields: RuleSetField[] = [];
    const fieldNames = new Map<string, string>();
    for (const field of service.fields) {
      const fieldWhere = `${service.name}/${field.name || field.field_id}`;
      const refuseField = (reason: string) => {
        skip({ kind: "field", id: field.field_id, where: fieldWhere, reason });
        const count = field.mappings.length + field.thresholds.length;
        if (count > 0)
          report.notes.push(`field ${fieldWhere} was not imported with its ${count} rules`);
      };
      if (!UUID.test(field.field_id)) {
        refuseField("its id is not a UUID");
        continue;
      }
      if (!field.name) {
        refuseField("a field needs a name");
        continue;
      }
      const otherField = fieldNames.get(field.name);
      if (otherField) {
        refuseField(`the same name as field ${otherField} of the same service`);
        continue;
      }
      fieldNames.set(field.name, field.field_id);
      fields.push({
        id: field.field_id.toLowerCase(),
        name: field.name,
        mappings: mappings(field.mappings, fieldWhere, true),
        thresholds: thresholds(field.thresholds, fieldWhere),
      });
    }
    services.push({
      id: service.service_id.toLowerCase(),
      name: service.name,
      mappings: mappings(service.mappings, service.name, false),
      thresholds: thresholds(service.thresholds, service.name),
      fields,
    });
  }

  const scripts = [];
  const scriptNames = new Map<string, string>();
  for (const script of source.scripts) {
    const where = `script ${script.name || script.script_id}`;
    if (!UUID.test(script.script_id)) {
      skip({ kind: "script", id: script.script_id, where, reason: "its id is not a UUID" });
      continue;
    }
    if (!script.name) {
      skip({ kind: "script", id: script.script_id, where, reason: "a script needs a name" });
      continue;
    }
    const other = scriptNames.get(script.name);
    if (other) {
      skip({
        kind: "script",
        id: script.script_id,
        where,
        reason: `the same name as script ${other}`,
      });
      continue;
    }
    noteLifecycle(script);
    scriptNames.set(script.name, script.script_id);
    scripts.push({
      id: script.script_id.toLowerCase(),
      name: script.name,
      data: script.data,
      ...lifecycleOf(script),
    });
  }

  if (withLifecycle && report.superseded!.length > 0) {
    report.notes.push(
      `${report.superseded!.length} CloudKitty 23+ mappings are followed by a later one of the ` +
        "same parent, value, tenant and group (their past, e.g. the old half of a price change): " +
        "not taken, the later one is",
    );
  }
  if (lifecycle > 0 && !withLifecycle) {
    report.notes.push(
      `${lifecycle} rules or scripts carry CloudKitty 23+ validity dates (start, end), which the ` +
        "rule-set document does not hold yet: they are imported as rules in force",
    );
  }

  const document = canonicalizeRuleSet({
    format: RULESET_FORMAT,
    version: RULESET_VERSION,
    revision: options.revision ?? "",
    modules,
    groups,
    services,
    scripts,
  });
  // The document's own checks, as apply will run them: a failure here is a bug of this conversion.
  const validation = validateRuleSet(document);
  if (!validation.ok) {
    throw new Error(
      `The converted rule set is not valid: ${validation.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
    );
  }
  report.counts = countRuleSet(document);
  report.duplicates.sort(
    (a, b) => compareText(a.parent, b.parent) || compareText(a.kept.id, b.kept.id),
  );
  return { document: validation.document, report };
}

function duplicate(
  kind: RuleKind,
  parent: string,
  key: string | null,
  kept: RuleSetMapping | RuleSetThreshold,
  dropped: (RuleSetMapping | RuleSetThreshold)[],
): DuplicateRule {
  const brief = (rule: RuleSetMapping | RuleSetThreshold) => ({
    id: rule.id,
    cost: rule.cost,
    type: rule.type,
  });
  return {
    kind,
    parent,
    key,
    tenant_id: kept.tenant_id,
    group_id: kept.group_id,
    kept: brief(kept),
    dropped: dropped.map(brief),
    costsDiffer: dropped.some((rule) => rule.cost !== kept.cost || rule.type !== kept.type),
  };
}

export function countRuleSet(document: RuleSetDocument): ImportReport["counts"] {
  const counts = {
    modules: document.modules.length,
    groups: document.groups.length,
    services: document.services.length,
    fields: 0,
    mappings: 0,
    thresholds: 0,
    scripts: document.scripts.length,
  };
  for (const service of document.services) {
    counts.mappings += service.mappings.length;
    counts.thresholds += service.thresholds.length;
    counts.fields += service.fields.length;
    for (const field of service.fields) {
      counts.mappings += field.mappings.length;
      counts.thresholds += field.thresholds.length;
    }
  }
  return counts;
}

/** One line per entry of the report, for a CLI or a log (no secrets exist in it). */
export function describeReport(report: ImportReport): string[] {
  const lines: string[] = [];
  for (const d of report.duplicates) {
    const what =
      d.kind === "mapping"
        ? d.key === null
          ? "service mapping"
          : `mapping ${JSON.stringify(d.key)}`
        : `threshold at ${d.key}`;
    lines.push(
      `duplicate ${what} in ${d.parent} (tenant ${d.tenant_id ?? "any"}, group ${d.group_id ?? "none"}): ` +
        `imported ${d.kept.id} (${d.kept.type} ${d.kept.cost}), not ${d.dropped.map((r) => `${r.id} (${r.type} ${r.cost})`).join(", ")}` +
        (d.costsDiffer ? "; CloudKitty prices with whichever it loads last" : ""),
    );
  }
  for (const s of report.skipped)
    lines.push(`not imported: ${s.kind} ${s.id} (${s.where}): ${s.reason}`);
  for (const n of report.notes) lines.push(n);
  return lines;
}
