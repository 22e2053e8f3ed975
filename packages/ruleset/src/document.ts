import { z } from "zod";
import { formatRuleDate, parseRuleDate } from "@ratecard/validators";
import { canonicalCost, canonicalLevel, compareDecimals } from "./decimal.js";

/*
 * The rule set as one document (`GET /v1/ratecard/ruleset`, the `ratecard` CLI's files, the
 * CloudKitty bridge's plans). Keys are snake_case as in CloudKitty's API. Every object carries its
 * id, so that a plan matches objects by id and an apply keeps them.
 *
 * Versions: 1 is the rule set without the lifecycle; 2 (what export writes) adds the lifecycle's
 * desired state to rules and scripts (`start`, `end`, `description`, and a rule's `name`), after
 * the existing keys. Both are read; a document keeps its version, so a version-1 document
 * serializes to the same bytes as before version 2 existed. A lifecycle key that is absent means
 * "keep what Ratecard has" (a create: the defaults), as a PUT that leaves it out: a version-1
 * document plans no lifecycle change. Audit metadata (created_*, updated_by, deleted*) is the audit
 * trail's, not desired state, and soft-deleted rules are not in the rule set.
 */

export const RULESET_FORMAT = "ratecard.ruleset";
/** The version export writes. */
export const RULESET_VERSION = 2;
/** The versions this Ratecard reads. */
export const RULESET_VERSIONS = [1, 2] as const;
export type RuleSetVersion = (typeof RULESET_VERSIONS)[number];

/**
 * The lifecycle's desired state on a rule or script (docs/lifecycle.md), each key optional:
 * absent means "keep Ratecard's" (or the default on a create). Moments are written as CloudKitty
 * writes them: UTC without an offset, microseconds when not zero (`2027-01-01T00:00:00`).
 */
export interface RuleSetLifecycle {
  /** When it takes effect. */
  start?: string;
  /** When it stops; null: never. */
  end?: string | null;
  description?: string | null;
}

export const RULE_TYPES = ["flat", "rate"] as const;
export type RuleType = (typeof RULE_TYPES)[number];

export interface RuleSetModule {
  id: string;
  enabled: boolean;
  priority: number;
}

export interface RuleSetGroup {
  id: string;
  name: string;
}

export interface RuleSetMapping {
  id: string;
  /** The matched metadata value of a field mapping; always null on a service mapping. */
  value: string | null;
  type: RuleType;
  /** Shortest exact decimal text: "0.5", "10", "0.00000001". */
  cost: string;
  tenant_id: string | null;
  group_id: string | null;
  start?: string;
  end?: string | null;
  /** Up to 32 characters, unique among the rules of its kind (null: none). */
  name?: string | null;
  description?: string | null;
}

export interface RuleSetThreshold {
  id: string;
  /** Shortest exact decimal text. */
  level: string;
  type: RuleType;
  cost: string;
  tenant_id: string | null;
  group_id: string | null;
  start?: string;
  end?: string | null;
  name?: string | null;
  description?: string | null;
}

export interface RuleSetField {
  id: string;
  name: string;
  mappings: RuleSetMapping[];
  thresholds: RuleSetThreshold[];
}

export interface RuleSetService {
  id: string;
  name: string;
  mappings: RuleSetMapping[];
  thresholds: RuleSetThreshold[];
  fields: RuleSetField[];
}

export interface RuleSetScript extends RuleSetLifecycle {
  id: string;
  name: string;
  data: string;
}

export interface RuleSetDocument {
  format: typeof RULESET_FORMAT;
  version: RuleSetVersion;
  /** Ratecard's rule-set revision the document was exported at ("" when written by hand). */
  revision: string;
  modules: RuleSetModule[];
  groups: RuleSetGroup[];
  services: RuleSetService[];
  scripts: RuleSetScript[];
}

// ------------------------------------------------------------------------------------ messages
// Messages are short and lower-case: they follow a JSON path ("services[0].mappings[1].cost: ...").

type Issue = { code: string; input?: unknown; keys?: string[] };

function describe(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "an array";
  if (typeof input === "object") return "an object";
  if (typeof input === "string") return "a string";
  if (typeof input === "number") return "a number";
  if (typeof input === "boolean") return "a boolean";
  return typeof input;
}

function expected(what: string) {
  return (issue: Issue) =>
    issue.input === undefined ? "required" : `expected ${what}, got ${describe(issue.input)}`;
}

function objectError(issue: Issue): string {
  if (issue.code === "unrecognized_keys") {
    const keys = (issue.keys ?? []).map((key) => JSON.stringify(key)).join(", ");
    return `unknown key${(issue.keys ?? []).length === 1 ? "" : "s"} ${keys}`;
  }
  return expected("an object")(issue);
}

function decimalTypeError(issue: Issue): string {
  if (issue.input === undefined) return "required";
  if (typeof issue.input === "number") {
    return 'not a decimal string: write it in quotes ("0.5"), a number is read as a binary float';
  }
  return "not a decimal";
}

/** parseDecimal's sentences as path messages. */
function decimalReason(reason: string): string {
  if (reason.startsWith("Not a decimal number")) return "not a decimal";
  const text = reason.replace(/\.$/, "");
  return text.charAt(0).toLowerCase() + text.slice(1);
}

// --------------------------------------------------------------------------------- leaf schemas

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Rating objects' ids are UUIDs (Ratecard's and CloudKitty's alike), kept lower-case. */
const ZId = z
  .string({ error: expected("a UUID string") })
  .regex(UUID, { error: "not a UUID" })
  .transform((id) => id.toLowerCase());

const ZName = z.string({ error: expected("a string") }).min(1, { error: "must not be empty" });

function decimalSchema(canonical: typeof canonicalCost) {
  return z.string({ error: decimalTypeError }).transform((text, ctx) => {
    const result = canonical(text);
    if (result.ok) return result.value;
    ctx.addIssue({ code: "custom", message: decimalReason(result.reason), input: text });
    return z.NEVER;
  });
}

const ZCost = decimalSchema(canonicalCost);
const ZLevel = decimalSchema(canonicalLevel);

const ZType = z.enum(RULE_TYPES, {
  error: (issue) => (issue.input === undefined ? "required" : 'must be "flat" or "rate"'),
});

/** A Keystone project id, free text; absent or null: every tenant. */
const ZTenant = z
  .string({ error: expected("a string or null") })
  .nullable()
  .optional()
  .transform((tenant) => tenant ?? null);

const ZGroupRef = ZId.nullable()
  .optional()
  .transform((group) => group ?? null);

/** A lifecycle moment, read as the REST API reads it, written canonical (formatRuleDate). */
function dateSchema(endOfDay: boolean) {
  return z.string({ error: expected("a date string") }).transform((text, ctx) => {
    const parsed = parseRuleDate(text.trim(), endOfDay);
    if (parsed) return formatRuleDate(parsed);
    ctx.addIssue({
      code: "custom",
      message: "not a date: expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (UTC)",
      input: text,
    });
    return z.NEVER;
  });
}

const ZDescription = z
  .string({ error: expected("a string or null") })
  .max(256, { error: "at most 256 characters" })
  .nullable()
  .optional();

/** The lifecycle's keys (absent: keep Ratecard's); a date alone as `end` is 23:59:59 that day. */
const lifecycle = {
  start: dateSchema(false).optional(),
  end: dateSchema(true).nullable().optional(),
  description: ZDescription,
};

const rule = {
  id: ZId,
  type: ZType,
  cost: ZCost,
  tenant_id: ZTenant,
  group_id: ZGroupRef,
  ...lifecycle,
  name: z
    .string({ error: expected("a string or null") })
    .trim()
    .min(1, { error: "must not be empty" })
    .max(32, { error: "at most 32 characters" })
    .nullable()
    .optional(),
};

const ZServiceMapping = z.strictObject(
  {
    ...rule,
    // CloudKitty reads "" for a service mapping created without a value; it is no value either way.
    value: z
      .string({ error: expected("null") })
      .nullable()
      .optional()
      .transform((value, ctx) => {
        if (!value) return null;
        ctx.addIssue({
          code: "custom",
          message: "a service mapping has no value: it prices the whole service",
          input: value,
        });
        return z.NEVER;
      }),
  },
  { error: objectError },
);

const ZFieldMapping = z.strictObject(
  {
    ...rule,
    value: z
      .string({
        error: (issue) =>
          issue.input === undefined || issue.input === null
            ? "a field mapping needs a value"
            : `expected a string, got ${describe(issue.input)}`,
      })
      .min(1, { error: "a field mapping needs a value" }),
  },
  { error: objectError },
);

const ZThreshold = z.strictObject({ ...rule, level: ZLevel }, { error: objectError });

function list<T extends z.ZodType>(item: T) {
  return z.array(item, { error: expected("an array") }).default([]);
}

const ZField = z.strictObject(
  {
    id: ZId,
    name: ZName,
    mappings: list(ZFieldMapping),
    thresholds: list(ZThreshold),
  },
  { error: objectError },
);

const ZService = z.strictObject(
  {
    id: ZId,
    name: ZName,
    mappings: list(ZServiceMapping),
    thresholds: list(ZThreshold),
    fields: list(ZField),
  },
  { error: objectError },
);

const ZGroup = z.strictObject({ id: ZId, name: ZName }, { error: objectError });

const ZScript = z.strictObject(
  { id: ZId, name: ZName, data: z.string({ error: expected("a string") }), ...lifecycle },
  { error: objectError },
);

// Booleans and numbers go through a transform, as @ratecard/validators' inputs do: trpc-to-openapi
// turns bare boolean and number leaves of an input into coercions ("false" would become true).
const ZModule = z.strictObject(
  {
    id: z.string({ error: expected("a string") }).min(1, { error: "must not be empty" }),
    enabled: z.boolean({ error: expected("true or false") }).transform((enabled) => enabled),
    priority: z.int({ error: expected("an integer") }).transform((priority) => priority),
  },
  { error: objectError },
);

const ZShape = z.strictObject(
  {
    format: z.literal(RULESET_FORMAT, {
      error: (issue) =>
        issue.input === undefined ? "required" : `must be ${JSON.stringify(RULESET_FORMAT)}`,
    }),
    version: z.literal(RULESET_VERSIONS, {
      error: (issue) =>
        issue.input === undefined
          ? "required"
          : `unsupported version ${JSON.stringify(issue.input)}: this Ratecard reads versions ${RULESET_VERSIONS.join(" and ")}`,
    }),
    revision: z
      .string({ error: expected("a string") })
      .optional()
      .transform((revision) => revision ?? ""),
    modules: list(ZModule),
    groups: list(ZGroup),
    services: list(ZService),
    scripts: list(ZScript),
  },
  { error: objectError },
);

// ---------------------------------------------------------------------- whole-document checks

type Path = (string | number)[];
type AddIssue = (path: Path, message: string) => void;

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asText = (value: unknown): string | undefined =>
  typeof value === "string" ? value : undefined;

/** Reports the second and later holders of a key, naming the first. */
class UniqueKeys {
  readonly #first = new Map<string, Path>();
  constructor(
    private readonly add: AddIssue,
    private readonly message: (key: string, first: string) => string,
  ) {}
  see(key: string | undefined, path: Path): void {
    if (key === undefined) return;
    const first = this.#first.get(key);
    if (first) this.add(path, this.message(key, formatPath(first)));
    else this.#first.set(key, path);
  }
}

/**
 * The rules Ratecard's database enforces, across the document: unique ids per kind, unique names
 * (services, groups, scripts; fields within their service), groups referenced by rules exist, and
 * no two identical rules (hashmap_mappings_identity and hashmap_thresholds_identity: the same
 * parent, value or level, tenant and group, a null tenant or group being the same as "").
 * Written against the partly parsed value: it runs even when some entries are malformed, so that
 * one answer lists every error.
 */
function checkDocument(value: unknown, add: AddIssue): void {
  const document = asRecord(value);
  if (!document) return;
  const duplicateId = (_: string, first: string) => `duplicate id: also ${first}`;
  const duplicateName = (name: string, first: string) =>
    `duplicate name ${JSON.stringify(name)}: also ${first}`;
  const sameRule = (what: string) => (_: string, first: string) =>
    `the same rule as ${first} (same parent, ${what}, tenant and group)`;

  const ids = {
    modules: new UniqueKeys(add, duplicateId),
    groups: new UniqueKeys(add, duplicateId),
    services: new UniqueKeys(add, duplicateId),
    fields: new UniqueKeys(add, duplicateId),
    mappings: new UniqueKeys(add, duplicateId),
    thresholds: new UniqueKeys(add, duplicateId),
    scripts: new UniqueKeys(add, duplicateId),
  };
  const id = (entry: Record<string, unknown>) => asText(entry.id)?.toLowerCase();

  // Version 1 predates the lifecycle: its keys there are a mistake, not something to drop.
  const lifecycleAllowed = document.version !== 1;
  const ruleNames = {
    mappings: new UniqueKeys(add, duplicateName),
    thresholds: new UniqueKeys(add, duplicateName),
  };
  const checkLifecycle = (
    entry: Record<string, unknown>,
    path: Path,
    kind?: "mappings" | "thresholds",
  ) => {
    const keys = kind ? ["start", "end", "name", "description"] : ["start", "end", "description"];
    if (!lifecycleAllowed) {
      for (const key of keys)
        if (key in entry) add([...path, key], "not in a version-1 document (write version: 2)");
      return;
    }
    const start = asText(entry.start);
    const end = asText(entry.end);
    const from = start === undefined ? undefined : parseRuleDate(start.trim());
    const to = end === undefined ? undefined : parseRuleDate(end.trim(), true);
    if (from && to && to < from) add([...path, "end"], `before start (${formatRuleDate(from)})`);
    const name = asText(entry.name)?.trim();
    if (kind && name) ruleNames[kind].see(name, [...path, "name"]);
  };

  asList(document.modules).forEach((entry, index) => {
    const module = asRecord(entry);
    if (module) ids.modules.see(asText(module.id), ["modules", index, "id"]);
  });

  const groupIds = new Set<string>();
  const groupNames = new UniqueKeys(add, duplicateName);
  asList(document.groups).forEach((entry, index) => {
    const group = asRecord(entry);
    if (!group) return;
    const groupId = id(group);
    if (groupId) groupIds.add(groupId);
    ids.groups.see(groupId, ["groups", index, "id"]);
    groupNames.see(asText(group.name), ["groups", index, "name"]);
  });

  const scriptNames = new UniqueKeys(add, duplicateName);
  asList(document.scripts).forEach((entry, index) => {
    const script = asRecord(entry);
    if (!script) return;
    ids.scripts.see(id(script), ["scripts", index, "id"]);
    scriptNames.see(asText(script.name), ["scripts", index, "name"]);
    checkLifecycle(script, ["scripts", index]);
  });

  const mappingRules = new UniqueKeys(add, sameRule("value"));
  const thresholdRules = new UniqueKeys(add, sameRule("level"));
  const checkRules = (parent: Record<string, unknown>, parentPath: Path, isField: boolean) => {
    // The parent is the enclosing object itself: its path, not its id, which may be malformed.
    const parentKey = formatPath(parentPath);
    asList(parent.mappings).forEach((entry, index) => {
      const mapping = asRecord(entry);
      if (!mapping) return;
      const path = [...parentPath, "mappings", index];
      ids.mappings.see(id(mapping), [...path, "id"]);
      checkGroupRef(mapping, path);
      checkLifecycle(mapping, path, "mappings");
      const value = isField ? asText(mapping.value) : "";
      if (value === undefined) return;
      mappingRules.see(ruleKey(parentKey, value, mapping), path);
    });
    asList(parent.thresholds).forEach((entry, index) => {
      const threshold = asRecord(entry);
      if (!threshold) return;
      const path = [...parentPath, "thresholds", index];
      ids.thresholds.see(id(threshold), [...path, "id"]);
      checkGroupRef(threshold, path);
      checkLifecycle(threshold, path, "thresholds");
      // "10" and "10.0" are one level: compare the canonical text.
      const raw = asText(threshold.level);
      const level = raw === undefined ? undefined : canonicalLevel(raw);
      if (!level?.ok) return;
      thresholdRules.see(ruleKey(parentKey, level.value, threshold), path);
    });
  };
  const checkGroupRef = (rule: Record<string, unknown>, path: Path) => {
    const groupId = asText(rule.group_id)?.toLowerCase();
    if (groupId && UUID.test(groupId) && !groupIds.has(groupId)) {
      add([...path, "group_id"], "no group with this id in groups");
    }
  };

  const serviceNames = new UniqueKeys(add, duplicateName);
  asList(document.services).forEach((entry, serviceIndex) => {
    const service = asRecord(entry);
    if (!service) return;
    const servicePath = ["services", serviceIndex];
    ids.services.see(id(service), [...servicePath, "id"]);
    serviceNames.see(asText(service.name), [...servicePath, "name"]);
    checkRules(service, servicePath, false);
    const fieldNames = new UniqueKeys(add, duplicateName);
    asList(service.fields).forEach((fieldEntry, fieldIndex) => {
      const field = asRecord(fieldEntry);
      if (!field) return;
      const fieldPath = [...servicePath, "fields", fieldIndex];
      ids.fields.see(id(field), [...fieldPath, "id"]);
      fieldNames.see(asText(field.name), [...fieldPath, "name"]);
      checkRules(field, fieldPath, true);
    });
  });
}

/** The identity index's key: COALESCE(value/level, tenant, group, ''). */
function ruleKey(parent: string, valueOrLevel: string, rule: Record<string, unknown>): string {
  return JSON.stringify([
    parent,
    valueOrLevel,
    asText(rule.tenant_id) ?? "",
    asText(rule.group_id)?.toLowerCase() ?? "",
  ]);
}

// ---------------------------------------------------------------------------------- the schema

/**
 * A rule-set document as sent by a client (JSON body, or a parsed JSON/YAML file): validates it,
 * every error with its JSON path, and returns it canonical (decimals in shortest form, ids
 * lower-case, absent lists empty, entries in the document's stable order).
 */
export const ZRuleSetDocument = ZShape.superRefine(
  (value, ctx) => {
    checkDocument(value, (path, message) =>
      ctx.addIssue({ code: "custom", path, message, input: undefined }),
    );
  },
  // Run on a partly valid document too: one answer lists every error.
  { when: () => true },
).transform((document): RuleSetDocument => canonicalizeRuleSet(document as RuleSetDocument));

// -------------------------------------------------------------------------------- stable order

function compareText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  // Code-unit order: the same in every locale and runtime.
  return a < b ? -1 : 1;
}

const byName = (a: { name: string; id: string }, b: { name: string; id: string }) =>
  compareText(a.name, b.name) || compareText(a.id, b.id);

function compareMappings(a: RuleSetMapping, b: RuleSetMapping): number {
  return (
    compareText(a.value, b.value) ||
    compareText(a.tenant_id, b.tenant_id) ||
    compareText(a.group_id, b.group_id) ||
    compareText(a.id, b.id)
  );
}

function compareThresholds(a: RuleSetThreshold, b: RuleSetThreshold): number {
  return (
    compareDecimals(a.level, b.level) ||
    compareText(a.tenant_id, b.tenant_id) ||
    compareText(a.group_id, b.group_id) ||
    compareText(a.id, b.id)
  );
}

function decimal(canonical: typeof canonicalCost, text: string): string {
  const result = canonical(text);
  if (!result.ok) throw new RangeError(`${text}: ${result.reason}`);
  return result.value;
}

// Objects are rebuilt key by key: JSON.stringify writes keys in insertion order, so this fixes the
// bytes whatever order the input had its keys in.

function moment(text: string, endOfDay: boolean): string {
  const parsed = parseRuleDate(text, endOfDay);
  if (!parsed) throw new RangeError(`${text}: not a date`);
  return formatRuleDate(parsed);
}

/**
 * The lifecycle keys that are present, in CloudKitty master's order (start, end, name,
 * description); absent ones stay absent (they mean "keep"), so a document without them keeps its
 * bytes.
 */
function lifecycleKeys(
  entry: RuleSetLifecycle & { name?: string | null },
  withName: boolean,
): RuleSetLifecycle & { name?: string | null } {
  const out: RuleSetLifecycle & { name?: string | null } = {};
  if (entry.start !== undefined) out.start = moment(entry.start, false);
  if (entry.end !== undefined) out.end = entry.end === null ? null : moment(entry.end, true);
  if (withName && entry.name !== undefined) out.name = entry.name;
  if (entry.description !== undefined) out.description = entry.description;
  return out;
}

const mapping = (m: RuleSetMapping): RuleSetMapping => ({
  id: m.id,
  value: m.value || null,
  type: m.type,
  cost: decimal(canonicalCost, m.cost),
  tenant_id: m.tenant_id ?? null,
  group_id: m.group_id ?? null,
  ...lifecycleKeys(m, true),
});

const threshold = (t: RuleSetThreshold): RuleSetThreshold => ({
  id: t.id,
  level: decimal(canonicalLevel, t.level),
  type: t.type,
  cost: decimal(canonicalCost, t.cost),
  tenant_id: t.tenant_id ?? null,
  group_id: t.group_id ?? null,
  ...lifecycleKeys(t, true),
});

/**
 * The document in its stable order and key order, decimals in shortest form: what serialization
 * writes. Equal rule sets give equal results whatever order their entries came in.
 */
export function canonicalizeRuleSet(document: RuleSetDocument): RuleSetDocument {
  return {
    format: RULESET_FORMAT,
    // A document keeps its version: a version-1 document keeps its bytes.
    version: document.version,
    revision: document.revision,
    modules: document.modules
      .map((m) => ({ id: m.id, enabled: m.enabled, priority: m.priority }))
      .sort((a, b) => compareText(a.id, b.id)),
    groups: document.groups.map((g) => ({ id: g.id, name: g.name })).sort(byName),
    services: document.services
      .map((s) => ({
        id: s.id,
        name: s.name,
        mappings: s.mappings.map(mapping).sort(compareMappings),
        thresholds: s.thresholds.map(threshold).sort(compareThresholds),
        fields: s.fields
          .map((f) => ({
            id: f.id,
            name: f.name,
            mappings: f.mappings.map(mapping).sort(compareMappings),
            thresholds: f.thresholds.map(threshold).sort(compareThresholds),
          }))
          .sort(byName),
      }))
      .sort(byName),
    scripts: document.scripts
      .map((s) => ({
        id: s.id,
        name: s.name,
        data: s.data,
        ...(lifecycleKeys(s, false) as RuleSetLifecycle),
      }))
      .sort(byName),
  };
}

// ------------------------------------------------------------------------------------- issues

/** One validation error: the JSON path of the offending entry and what is wrong with it. */
export interface RuleSetIssue {
  path: string;
  message: string;
}

/** `["services", 2, "fields", 0, "cost"]` -> `services[2].fields[0].cost`; the root is `(document)`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const part of path) {
    if (typeof part === "number") text += `[${part}]`;
    else if (typeof part === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(part))
      text += text ? `.${part}` : part;
    else text += `[${JSON.stringify(String(part))}]`;
  }
  return text || "(document)";
}

export function formatIssue(issue: RuleSetIssue): string {
  return `${issue.path}: ${issue.message}`;
}

/** Zod's issues as path + message, one per unknown key, in document order. */
export function toRuleSetIssues(error: z.ZodError): RuleSetIssue[] {
  const issues: RuleSetIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        issues.push({ path: formatPath([...issue.path, key]), message: "unknown key" });
      }
    } else {
      issues.push({ path: formatPath(issue.path), message: issue.message });
    }
  }
  return issues;
}

export type RuleSetValidation =
  { ok: true; document: RuleSetDocument } | { ok: false; issues: RuleSetIssue[] };

/** Validates a parsed document (a JSON body, or a YAML file's data). */
export function validateRuleSet(value: unknown): RuleSetValidation {
  const result = ZRuleSetDocument.safeParse(value);
  if (result.success) return { ok: true, document: result.data };
  return { ok: false, issues: toRuleSetIssues(result.error) };
}

export class RuleSetValidationError extends Error {
  constructor(readonly issues: RuleSetIssue[]) {
    super(
      `Invalid rule set (${issues.length} error${issues.length === 1 ? "" : "s"}):\n` +
        issues.map(formatIssue).join("\n"),
    );
    this.name = "RuleSetValidationError";
  }
}
