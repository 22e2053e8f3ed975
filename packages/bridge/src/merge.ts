import {
  canonicalizeRuleSet,
  type RuleSetDocument,
  type RuleSetField,
  type RuleSetMapping,
  type RuleSetService,
  type RuleSetThreshold,
} from "@ratecard/ruleset";
import { countRuleSet, type ImportReport } from "./convert.js";

/*
 * Import with `merge`: Ratecard's rule set stays as it is, and what the incoming document has that
 * Ratecard lacks is added. An object Ratecard already has (same id, or same natural key: a name, or
 * a rule's parent, value or level, tenant and group) is never changed: when it differs, it is a
 * conflict, reported.
 */

export interface MergeConflict {
  kind: "module" | "group" | "service" | "field" | "mapping" | "threshold" | "script";
  /** The incoming object's id. */
  id: string;
  /** Where, by names: "compute/flavor". */
  where: string;
  reason: string;
}

export interface Merge {
  /** Ratecard's rule set plus what was added: what to apply. */
  document: RuleSetDocument;
  /** How many objects were added, per kind. */
  added: ImportReport["counts"];
  conflicts: MergeConflict[];
}

const sameRuleBody = (
  a: RuleSetMapping | RuleSetThreshold,
  b: RuleSetMapping | RuleSetThreshold,
): boolean => JSON.stringify(a) === JSON.stringify(b);

export function mergeRuleSets(current: RuleSetDocument, incoming: RuleSetDocument): Merge {
  const conflicts: MergeConflict[] = [];
  const conflict = (entry: MergeConflict) => conflicts.push(entry);
  // A deep copy: the result is Ratecard's document with additions, `current` stays untouched.
  const result = structuredClone(current);

  for (const module of incoming.modules) {
    const mine = result.modules.find((m) => m.id === module.id);
    if (mine && (mine.enabled !== module.enabled || mine.priority !== module.priority)) {
      conflict({
        kind: "module",
        id: module.id,
        where: `module ${module.id}`,
        reason:
          `Ratecard has it ${mine.enabled ? "enabled" : "disabled"} at priority ${mine.priority}, ` +
          `CloudKitty ${module.enabled ? "enabled" : "disabled"} at priority ${module.priority}: kept Ratecard's`,
      });
    }
  }

  // Incoming group id -> the id it has in the result.
  const groupIds = new Map<string, string>();
  for (const group of incoming.groups) {
    const byId = result.groups.find((g) => g.id === group.id);
    const byName = result.groups.find((g) => g.name === group.name);
    if (byId) {
      groupIds.set(group.id, byId.id);
      if (byId.name !== group.name)
        conflict({
          kind: "group",
          id: group.id,
          where: `group ${group.name}`,
          reason: `Ratecard's group with this id is named ${JSON.stringify(byId.name)}: kept Ratecard's`,
        });
    } else if (byName) {
      groupIds.set(group.id, byName.id);
      conflict({
        kind: "group",
        id: group.id,
        where: `group ${group.name}`,
        reason: `Ratecard has a group of this name with id ${byName.id}: its rules are added to that group`,
      });
    } else {
      groupIds.set(group.id, group.id);
      result.groups.push({ ...group });
    }
  }

  // Every id Ratecard has, per kind, to tell "already there" from "missing".
  const mappingIds = new Map<string, RuleSetMapping>();
  const thresholdIds = new Map<string, RuleSetThreshold>();
  const fieldIds = new Set<string>();
  for (const service of result.services) {
    service.mappings.forEach((m) => mappingIds.set(m.id, m));
    service.thresholds.forEach((t) => thresholdIds.set(t.id, t));
    for (const field of service.fields) {
      fieldIds.add(field.id);
      field.mappings.forEach((m) => mappingIds.set(m.id, m));
      field.thresholds.forEach((t) => thresholdIds.set(t.id, t));
    }
  }

  const mergeRules = (
    into: { mappings: RuleSetMapping[]; thresholds: RuleSetThreshold[] },
    from: { mappings: RuleSetMapping[]; thresholds: RuleSetThreshold[] },
    where: string,
  ) => {
    const key = (valueOrLevel: string | null, rule: RuleSetMapping | RuleSetThreshold) =>
      JSON.stringify([valueOrLevel ?? "", rule.tenant_id ?? "", rule.group_id ?? ""]);
    const mappingKeys = new Map(into.mappings.map((m) => [key(m.value, m), m]));
    for (const incomingRule of from.mappings) {
      const rule = { ...incomingRule, group_id: remapGroup(incomingRule.group_id) };
      const existing = mappingIds.get(rule.id);
      if (existing) {
        if (!sameRuleBody(existing, rule))
          conflict({
            kind: "mapping",
            id: rule.id,
            where,
            reason: "Ratecard has a mapping with this id that differs: kept Ratecard's",
          });
        continue;
      }
      const same = mappingKeys.get(key(rule.value, rule));
      if (same) {
        conflict({
          kind: "mapping",
          id: rule.id,
          where,
          reason: `Ratecard has the same rule as ${same.id} (value, tenant and group)${same.cost === rule.cost && same.type === rule.type ? "" : ` at ${same.type} ${same.cost}, CloudKitty at ${rule.type} ${rule.cost}`}: kept Ratecard's`,
        });
        continue;
      }
      into.mappings.push(rule);
      mappingIds.set(rule.id, rule);
      mappingKeys.set(key(rule.value, rule), rule);
      added.mappings++;
    }
    const thresholdKeys = new Map(into.thresholds.map((t) => [key(t.level, t), t]));
    for (const incomingRule of from.thresholds) {
      const rule = { ...incomingRule, group_id: remapGroup(incomingRule.group_id) };
      const existing = thresholdIds.get(rule.id);
      if (existing) {
        if (!sameRuleBody(existing, rule))
          conflict({
            kind: "threshold",
            id: rule.id,
            where,
            reason: "Ratecard has a threshold with this id that differs: kept Ratecard's",
          });
        continue;
      }
      const same = thresholdKeys.get(key(rule.level, rule));
      if (same) {
        conflict({
          kind: "threshold",
          id: rule.id,
          where,
          reason: `Ratecard has the same rule as ${same.id} (level, tenant and group)${same.cost === rule.cost && same.type === rule.type ? "" : ` at ${same.type} ${same.cost}, CloudKitty at ${rule.type} ${rule.cost}`}: kept Ratecard's`,
        });
        continue;
      }
      into.thresholds.push(rule);
      thresholdIds.set(rule.id, rule);
      thresholdKeys.set(key(rule.level, rule), rule);
      added.thresholds++;
    }
  };
  const remapGroup = (groupId: string | null) =>
    groupId === null ? null : (groupIds.get(groupId) ?? groupId);

  const added: ImportReport["counts"] = {
    modules: 0,
    groups: result.groups.length - current.groups.length,
    services: 0,
    fields: 0,
    mappings: 0,
    thresholds: 0,
    scripts: 0,
  };

  for (const service of incoming.services) {
    let target: RuleSetService | undefined = result.services.find((s) => s.id === service.id);
    if (target && target.name !== service.name) {
      conflict({
        kind: "service",
        id: service.id,
        where: service.name,
        reason: `Ratecard's service with this id is named ${JSON.stringify(target.name)}: its missing fields and rules are added to it`,
      });
    }
    if (!target) {
      target = result.services.find((s) => s.name === service.name);
      if (target)
        conflict({
          kind: "service",
          id: service.id,
          where: service.name,
          reason: `Ratecard has a service of this name with id ${target.id}: its missing fields and rules are added to it`,
        });
    }
    if (!target) {
      target = { id: service.id, name: service.name, mappings: [], thresholds: [], fields: [] };
      result.services.push(target);
      added.services++;
    }
    mergeRules(target, service, service.name);
    for (const field of service.fields) {
      const where = `${service.name}/${field.name}`;
      let into: RuleSetField | undefined = target.fields.find((f) => f.id === field.id);
      if (!into) {
        into = target.fields.find((f) => f.name === field.name);
        if (into)
          conflict({
            kind: "field",
            id: field.id,
            where,
            reason: `Ratecard has a field of this name with id ${into.id}: its missing rules are added to it`,
          });
      } else if (into.name !== field.name) {
        conflict({
          kind: "field",
          id: field.id,
          where,
          reason: `Ratecard's field with this id is named ${JSON.stringify(into.name)}: its missing rules are added to it`,
        });
      }
      if (!into && fieldIds.has(field.id)) {
        conflict({
          kind: "field",
          id: field.id,
          where,
          reason:
            "Ratecard has a field with this id under another service: not imported, with its rules",
        });
        continue;
      }
      if (!into) {
        into = { id: field.id, name: field.name, mappings: [], thresholds: [] };
        target.fields.push(into);
        fieldIds.add(field.id);
        added.fields++;
      }
      mergeRules(into, field, where);
    }
  }

  for (const script of incoming.scripts) {
    const byId = result.scripts.find((s) => s.id === script.id);
    const byName = result.scripts.find((s) => s.name === script.name);
    if (byId) {
      if (byId.name !== script.name || byId.data !== script.data)
        conflict({
          kind: "script",
          id: script.id,
          where: `script ${script.name}`,
          reason: "Ratecard has a script with this id that differs: kept Ratecard's",
        });
    } else if (byName) {
      conflict({
        kind: "script",
        id: script.id,
        where: `script ${script.name}`,
        reason: `Ratecard has a script of this name with id ${byName.id}: kept Ratecard's`,
      });
    } else {
      result.scripts.push({ ...script });
      added.scripts++;
    }
  }

  return { document: canonicalizeRuleSet(result), added, conflicts };
}

/** Whether a document holds no rating objects (modules, a fixed set, do not count). */
export function isEmptyRuleSet(document: RuleSetDocument): boolean {
  return (
    document.groups.length === 0 && document.services.length === 0 && document.scripts.length === 0
  );
}

export { countRuleSet };
