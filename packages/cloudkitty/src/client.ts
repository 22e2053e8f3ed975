import { randomUUID } from "node:crypto";
import pLimit from "p-limit";
import type { z } from "zod";
import { compareDecimals, isDecimalText } from "./decimal.js";
import {
  CloudKittyAuthError,
  CloudKittyCatalogError,
  CloudKittyClientError,
  CloudKittyFaultError,
  CloudKittyUnexpectedStatusError,
  CloudKittyUnreachableError,
} from "./errors.js";
import { exchange, readAnswer, tryParseJson, type HttpAnswer } from "./http.js";
import { KeystoneSession } from "./keystone.js";
import {
  ZFault,
  ZField,
  ZFieldList,
  ZGroup,
  ZGroupList,
  ZMapping,
  ZMappingList,
  ZMetricList,
  ZModule,
  ZModuleList,
  ZScript,
  ZScriptList,
  ZService,
  ZServiceList,
  ZThreshold,
  ZThresholdList,
  type CkField,
  type CkGroup,
  type CkMapping,
  type CkMetric,
  type CkModule,
  type CkRuleType,
  type CkScript,
  type CkService,
  type CkThreshold,
} from "./schemas.js";
import type { CloudKittyTarget } from "./target.js";

const HASHMAP = "/v1/rating/module_config/hashmap";
const PYSCRIPTS = "/v1/rating/module_config/pyscripts";
const MODULES = "/v1/rating/modules";

export interface CloudKittyClientOptions {
  /** Deadline of each request, Keystone's included (default 10 s). */
  timeoutMs?: number;
  /** Appended to the message of a request that timed out: how to raise the deadline. */
  timeoutHint?: string;
  /** Requests in flight at once while walking the rule tree (default 8). */
  concurrency?: number;
}

/** What CloudKitty answered to a write, for the run history. */
export interface WriteOutcome<T> {
  status: number;
  requestId: string | undefined;
  /** CloudKitty's `Location` (a PUT's 302 points back at the object: it is not followed). */
  location: string | undefined;
  /** The object as CloudKitty returned it (creates, script updates); undefined otherwise. */
  object: T;
}

export interface DeleteOutcome {
  status: number;
  requestId: string | undefined;
  /** CloudKitty answered 404: the object was already gone, which counts as done. */
  alreadyAbsent: boolean;
}

/** A rule hangs on exactly one parent: a service, or a field (then it needs a value). */
export type RuleParent =
  { service_id: string; field_id?: null } | { field_id: string; service_id?: null };

export type MappingCreate = RuleParent & {
  /** A field mapping's value; a service mapping has none. */
  value?: string | null;
  type?: CkRuleType;
  /** Exact decimal text ("0.00000001"): sent as a JSON string, never as a number. */
  cost: string;
  group_id?: string | null;
  tenant_id?: string | null;
} & RuleLifecycle;

/**
 * CloudKitty 23+'s validity dates and texts on a mapping or script (never sent when absent, so
 * requests to CloudKitty before 23, which refuses unknown attributes, stay as they were). Moments
 * are CloudKitty's naive text, `2027-01-01T00:00:00[.ffffff]`: CloudKitty 23 compares them with its
 * own naive `datetime.now()` and answers 500 to a moment with an offset, so they are UTC written
 * without one (a CloudKitty host whose local zone is not UTC would read them shifted).
 */
export interface RuleLifecycle {
  start?: string | null;
  end?: string | null;
  /** At most 32 characters, unique among CloudKitty's rules of the kind; CloudKitty makes one up when absent. */
  name?: string | null;
  description?: string | null;
}

/**
 * A CloudKitty 23+ mapping PUT. CloudKitty 23 updates only `cost`, `start`, `end` and
 * `description` of a rule that has not started (the type, value, tenant and group sent are
 * ignored; an omitted end or description is cleared), and of a started rule only its `end`, once:
 * every other attribute sent must then equal what it holds (compared as Python objects: the parent
 * and group ids compare with its integer keys, so they are never sent here), the end must be in
 * the future, and a started rule that has an end cannot be changed at all.
 */
export interface MappingUpdate23 {
  cost: string;
  type: CkRuleType;
  value?: string | null;
  tenant_id?: string | null;
  start?: string | null;
  end: string | null;
  description?: string | null;
}

/** A CloudKitty 23+ script PUT (see MappingUpdate23): `data` only for a script not started yet. */
export interface ScriptUpdate23 {
  name: string;
  data?: string;
  start?: string | null;
  end: string | null;
  description?: string | null;
}

export type ThresholdCreate = RuleParent & {
  level: string;
  type?: CkRuleType;
  cost: string;
  group_id?: string | null;
  tenant_id?: string | null;
};

/**
 * A PUT replaces every editable attribute (an omitted type becomes flat, an omitted tenant null),
 * so an update carries the whole desired rule. CloudKitty ignores a parent change, and a null
 * group_id does not take a rule out of its group: both need delete + create.
 */
export type MappingUpdate = Omit<CkMapping, "mapping_id">;
export type ThresholdUpdate = Omit<CkThreshold, "threshold_id">;

export interface ModuleUpdate {
  enabled?: boolean;
  priority?: number;
}

export interface FieldTree extends CkField {
  mappings: CkMapping[];
  thresholds: CkThreshold[];
}

export interface ServiceTree extends CkService {
  /** The service's own rules (field rules are under `fields`). */
  mappings: CkMapping[];
  thresholds: CkThreshold[];
  fields: FieldTree[];
}

/**
 * A CloudKitty's whole rating configuration, with CloudKitty's ids, costs and levels exactly as
 * CloudKitty sent them. Sorted (by name, value, level, then id) so that two reads of the same
 * rules compare equal.
 */
export interface CloudKittyRuleSet {
  /** The CloudKitty root it was read from (for Keystone targets, the catalog's endpoint). */
  endpoint: string;
  modules: CkModule[];
  groups: CkGroup[];
  services: ServiceTree[];
  scripts: CkScript[];
  /** How many requests the walk took. */
  requestCount: number;
}

/** CloudKitty 23 (2025.2) added validity dates to rules and forbids editing a started rule. */
export type ApiGeneration = "pre-23" | "23+" | "unknown";

export interface ProbeReport {
  /** Every service contacted (Keystone, then CloudKitty) answered over HTTP, whatever it said. */
  reachable: boolean;
  auth: "noauth" | "ok" | "refused" | "unknown";
  endpoint: string | undefined;
  generation: ApiGeneration;
  /** What the generation was told from (status and faultstring), or why it is unknown. */
  generationEvidence: string | undefined;
  modules: CkModule[] | undefined;
  /** The error that cut the probe short, by message (secrets never appear in it). */
  problem: string | undefined;
  requestIds: string[];
}

interface CallOptions {
  query?: Record<string, string>;
  body?: unknown;
  /** Statuses that are an answer rather than an error. */
  accept: readonly number[];
}

/**
 * A typed client of one CloudKitty's v1 rating API (hashmap, pyscripts, modules), noauth or
 * behind Keystone. It knows CloudKitty 17's quirks (see README.md); it knows nothing of Ratecard.
 */
export class CloudKittyClient {
  readonly target: CloudKittyTarget;
  readonly #timeoutMs: number;
  readonly #timeoutHint: string | undefined;
  readonly #concurrency: number;
  readonly #session: KeystoneSession | undefined;

  constructor(target: CloudKittyTarget, options: CloudKittyClientOptions = {}) {
    this.target = target;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#timeoutHint = options.timeoutHint;
    this.#concurrency = options.concurrency ?? 8;
    this.#session =
      target.kind === "keystone" ? new KeystoneSession(target, this.#timeoutMs) : undefined;
  }

  /** CloudKitty's root URL: the target's, or the rating endpoint of the token's catalog. */
  async endpoint(): Promise<string> {
    if (this.target.kind === "noauth") return this.target.url;
    return (await this.#session!.current()).endpoint;
  }

  // ------------------------------------------------------------------ transport

  async #call(method: string, path: string, options: CallOptions): Promise<HttpAnswer> {
    for (let attempt = 0; ; attempt++) {
      const auth = this.#session ? await this.#session.current() : undefined;
      const base = auth?.endpoint ?? (this.target as { url: string }).url;
      const search = new URLSearchParams(options.query ?? {}).toString();
      const query = search ? `?${search}` : "";
      const answer = await exchange({
        method,
        url: `${base}${path}${query}`,
        headers: auth ? { "X-Auth-Token": auth.token.reveal() } : {},
        body: options.body,
        timeoutMs: this.#timeoutMs,
      }).catch((error: unknown) => {
        throw this.#explainTimeout(error);
      });
      if (options.accept.includes(answer.status)) return answer;
      if (answer.status === 401 && auth && attempt === 0) {
        // Revoked, or expired early (Keystone's keys rotated): one fresh token. The 401 comes from
        // the token middleware before routing, so even a POST was not applied: safe to resend.
        this.#session!.invalidate(auth.token);
        continue;
      }
      throw answerError(answer, this.target.kind);
    }
  }

  /** A timeout names the request already; this adds the deadline and how to raise it. */
  #explainTimeout(error: unknown): unknown {
    if (error instanceof CloudKittyUnreachableError && error.timedOut) {
      const hint = this.#timeoutHint ? `; ${this.#timeoutHint}` : "";
      error.message += ` (deadline ${this.#timeoutMs / 1000} s per request${hint})`;
    }
    return error;
  }

  async #get<S extends z.ZodType>(
    path: string,
    schema: S,
    query?: Record<string, string>,
  ): Promise<z.output<S>> {
    const answer = await this.#call("GET", path, { query: query ?? {}, accept: [200] });
    return readAnswer(answer, schema);
  }

  async #create<S extends z.ZodType>(
    path: string,
    body: unknown,
    schema: S,
    query?: Record<string, string>,
  ): Promise<WriteOutcome<z.output<S>>> {
    const answer = await this.#call("POST", path, {
      body,
      accept: [200, 201],
      ...(query ? { query } : {}),
    });
    return {
      status: answer.status,
      requestId: answer.requestId,
      location: answer.location,
      object: readAnswer(answer, schema),
    };
  }

  /** CloudKitty 17 answers a PUT with 302 and a Location pointing at itself: that is success. */
  async #update(path: string, body: unknown): Promise<WriteOutcome<undefined>> {
    const answer = await this.#call("PUT", path, { body, accept: [200, 204, 302] });
    return {
      status: answer.status,
      requestId: answer.requestId,
      location: answer.location,
      object: undefined,
    };
  }

  async #delete(path: string, query?: Record<string, string>): Promise<DeleteOutcome> {
    const answer = await this.#call("DELETE", path, {
      query: query ?? {},
      accept: [200, 204, 404],
    });
    if (answer.status === 404 && !isFault(answer)) {
      // A 404 without CloudKitty's fault is a wrong URL (a proxy's page), not a deleted object.
      throw answerError(answer, this.target.kind);
    }
    return {
      status: answer.status,
      requestId: answer.requestId,
      alreadyAbsent: answer.status === 404,
    };
  }

  // ------------------------------------------------------------------ reads

  listModules(): Promise<CkModule[]> {
    return this.#get(MODULES, ZModuleList).then((list) => list.modules);
  }
  getModule(moduleId: string): Promise<CkModule> {
    return this.#get(`${MODULES}/${encodeURIComponent(moduleId)}`, ZModule);
  }
  listServices(): Promise<CkService[]> {
    return this.#get(`${HASHMAP}/services`, ZServiceList).then((list) => list.services);
  }
  getService(serviceId: string): Promise<CkService> {
    return this.#get(`${HASHMAP}/services/${encodeURIComponent(serviceId)}`, ZService);
  }
  listFields(serviceId: string): Promise<CkField[]> {
    return this.#get(`${HASHMAP}/fields`, ZFieldList, { service_id: serviceId }).then(
      (list) => list.fields,
    );
  }
  getField(fieldId: string): Promise<CkField> {
    return this.#get(`${HASHMAP}/fields/${encodeURIComponent(fieldId)}`, ZField);
  }
  listGroups(): Promise<CkGroup[]> {
    return this.#get(`${HASHMAP}/groups`, ZGroupList).then((list) => list.groups);
  }
  getGroup(groupId: string): Promise<CkGroup> {
    return this.#get(`${HASHMAP}/groups/${encodeURIComponent(groupId)}`, ZGroup);
  }
  /** CloudKitty 17 answers 500 to a list without a filter: one of these is required. */
  listMappings(filter: ParentFilter): Promise<CkMapping[]> {
    return this.#get(`${HASHMAP}/mappings`, ZMappingList, filterQuery(filter)).then(
      (list) => list.mappings,
    );
  }
  getMapping(mappingId: string): Promise<CkMapping> {
    return this.#get(`${HASHMAP}/mappings/${encodeURIComponent(mappingId)}`, ZMapping);
  }
  listThresholds(filter: ParentFilter): Promise<CkThreshold[]> {
    return this.#get(`${HASHMAP}/thresholds`, ZThresholdList, filterQuery(filter)).then(
      (list) => list.thresholds,
    );
  }
  getThreshold(thresholdId: string): Promise<CkThreshold> {
    return this.#get(`${HASHMAP}/thresholds/${encodeURIComponent(thresholdId)}`, ZThreshold);
  }
  listScripts(): Promise<CkScript[]> {
    return this.#get(`${PYSCRIPTS}/scripts`, ZScriptList).then((list) => list.scripts);
  }
  getScript(scriptId: string): Promise<CkScript> {
    return this.#get(`${PYSCRIPTS}/scripts/${encodeURIComponent(scriptId)}`, ZScript);
  }

  /**
   * The metrics CloudKitty collects, with the metadata it keeps of each (`GET /v1/info/metrics`),
   * or null when it has none configured (CloudKitty answers 405 then).
   */
  async listMetrics(): Promise<CkMetric[] | null> {
    const answer = await this.#call("GET", "/v1/info/metrics", { accept: [200, 405] });
    if (answer.status === 405) return null;
    return readAnswer(answer, ZMetricList).metrics;
  }

  /**
   * Reads the whole rule set by walking the tree: modules, groups and scripts, each service's
   * fields, mappings and thresholds, each field's mappings and thresholds. Lists have no
   * pagination, and a mappings list without a parent is a 500 on CloudKitty 17.
   */
  async readRuleSet(): Promise<CloudKittyRuleSet> {
    const endpoint = await this.endpoint();
    const limit = pLimit(this.#concurrency);
    let requestCount = 0;
    const run = <T>(read: () => Promise<T>): Promise<T> =>
      limit(() => {
        requestCount++;
        return read();
      });

    const modules = await run(() => this.listModules());
    const loaded = new Set(modules.map((module) => module.module_id));
    const hashmap = loaded.has("hashmap");
    const [groups, services, scripts] = await Promise.all([
      hashmap ? run(() => this.listGroups()) : [],
      hashmap ? run(() => this.listServices()) : [],
      loaded.has("pyscripts") ? run(() => this.listScripts()) : [],
    ]);
    const trees = await Promise.all(
      services.map(async (service): Promise<ServiceTree> => {
        const filter = { service_id: service.service_id };
        const [fields, mappings, thresholds] = await Promise.all([
          run(() => this.listFields(service.service_id)),
          run(() => this.listMappings(filter)),
          run(() => this.listThresholds(filter)),
        ]);
        const fieldTrees = await Promise.all(
          fields.map(async (field): Promise<FieldTree> => {
            const byField = { field_id: field.field_id };
            const [fieldMappings, fieldThresholds] = await Promise.all([
              run(() => this.listMappings(byField)),
              run(() => this.listThresholds(byField)),
            ]);
            return {
              ...field,
              mappings: fieldMappings.sort(compareMappings),
              thresholds: fieldThresholds.sort(compareThresholds),
            };
          }),
        );
        return {
          ...service,
          mappings: mappings.sort(compareMappings),
          thresholds: thresholds.sort(compareThresholds),
          fields: fieldTrees.sort(byName),
        };
      }),
    );
    return {
      endpoint,
      modules: modules.sort((a, b) => compareText(a.module_id, b.module_id)),
      groups: groups.sort(byName),
      services: trees.sort(byName),
      scripts: scripts.sort(byName),
      requestCount,
    };
  }

  // ------------------------------------------------------------------ writes

  createService(name: string): Promise<WriteOutcome<CkService>> {
    return this.#create(`${HASHMAP}/services`, { name }, ZService);
  }
  /** Cascades in CloudKitty to the service's fields and every rule under it. */
  deleteService(serviceId: string): Promise<DeleteOutcome> {
    return this.#delete(`${HASHMAP}/services/${encodeURIComponent(serviceId)}`);
  }
  createField(field: { service_id: string; name: string }): Promise<WriteOutcome<CkField>> {
    return this.#create(
      `${HASHMAP}/fields`,
      { service_id: field.service_id, name: field.name },
      ZField,
    );
  }
  deleteField(fieldId: string): Promise<DeleteOutcome> {
    return this.#delete(`${HASHMAP}/fields/${encodeURIComponent(fieldId)}`);
  }
  createGroup(name: string): Promise<WriteOutcome<CkGroup>> {
    return this.#create(`${HASHMAP}/groups`, { name }, ZGroup);
  }
  /**
   * Without `recursive` the group's rules stay, ungrouped. No `recursive` parameter is sent then:
   * CloudKitty 17 reads any value, `false` included, as true and would delete the rules.
   */
  deleteGroup(groupId: string, options: { recursive?: boolean } = {}): Promise<DeleteOutcome> {
    return this.#delete(
      `${HASHMAP}/groups/${encodeURIComponent(groupId)}`,
      options.recursive ? { recursive: "True" } : undefined,
    );
  }

  /** `force` (CloudKitty 23+): a start in the past is accepted. */
  createMapping(
    mapping: MappingCreate,
    options: { force?: boolean } = {},
  ): Promise<WriteOutcome<CkMapping>> {
    requireDecimal("cost", mapping.cost);
    return this.#create(
      `${HASHMAP}/mappings`,
      { ...ruleBody(mapping), ...lifecycleBody(mapping) },
      ZMapping,
      options.force ? { force: "true" } : undefined,
    );
  }
  /** A CloudKitty 23+ PUT: exactly the attributes given (see MappingUpdate23). */
  updateMapping23(mappingId: string, update: MappingUpdate23): Promise<WriteOutcome<undefined>> {
    requireDecimal("cost", update.cost);
    const body: Record<string, unknown> = { cost: update.cost, type: update.type };
    for (const key of ["value", "tenant_id", "start", "end", "description"] as const)
      if (update[key] !== undefined) body[key] = update[key];
    return this.#update(`${HASHMAP}/mappings/${encodeURIComponent(mappingId)}`, body);
  }
  updateMapping(mappingId: string, mapping: MappingUpdate): Promise<WriteOutcome<undefined>> {
    requireDecimal("cost", mapping.cost);
    return this.#update(`${HASHMAP}/mappings/${encodeURIComponent(mappingId)}`, {
      mapping_id: mappingId,
      ...ruleBody(mapping),
    });
  }
  deleteMapping(mappingId: string): Promise<DeleteOutcome> {
    return this.#delete(`${HASHMAP}/mappings/${encodeURIComponent(mappingId)}`);
  }

  createThreshold(threshold: ThresholdCreate): Promise<WriteOutcome<CkThreshold>> {
    requireDecimal("cost", threshold.cost);
    requireDecimal("level", threshold.level);
    return this.#create(`${HASHMAP}/thresholds`, ruleBody(threshold), ZThreshold);
  }
  updateThreshold(
    thresholdId: string,
    threshold: ThresholdUpdate,
  ): Promise<WriteOutcome<undefined>> {
    requireDecimal("cost", threshold.cost);
    requireDecimal("level", threshold.level);
    return this.#update(`${HASHMAP}/thresholds/${encodeURIComponent(thresholdId)}`, {
      threshold_id: thresholdId,
      ...ruleBody(threshold),
    });
  }
  deleteThreshold(thresholdId: string): Promise<DeleteOutcome> {
    return this.#delete(`${HASHMAP}/thresholds/${encodeURIComponent(thresholdId)}`);
  }

  createScript(
    script: { name: string; data: string } & Omit<RuleLifecycle, "name">,
    options: { force?: boolean } = {},
  ): Promise<WriteOutcome<CkScript>> {
    return this.#create(
      `${PYSCRIPTS}/scripts`,
      { name: script.name, data: script.data, ...lifecycleBody({ ...script, name: undefined }) },
      ZScript,
      options.force ? { force: "true" } : undefined,
    );
  }
  /** A CloudKitty 23+ script PUT: exactly the attributes given (see ScriptUpdate23). */
  async updateScript23(scriptId: string, update: ScriptUpdate23): Promise<WriteOutcome<CkScript>> {
    const body: Record<string, unknown> = { name: update.name };
    for (const key of ["data", "start", "end", "description"] as const)
      if (update[key] !== undefined) body[key] = update[key];
    const answer = await this.#call("PUT", `${PYSCRIPTS}/scripts/${encodeURIComponent(scriptId)}`, {
      body,
      accept: [200, 201],
    });
    return {
      status: answer.status,
      requestId: answer.requestId,
      location: answer.location,
      object: readAnswer(answer, ZScript),
    };
  }
  /** CloudKitty answers 201 with the script here (and a Location with the id twice). */
  async updateScript(
    scriptId: string,
    script: { name: string; data: string },
  ): Promise<WriteOutcome<CkScript>> {
    const answer = await this.#call("PUT", `${PYSCRIPTS}/scripts/${encodeURIComponent(scriptId)}`, {
      body: { script_id: scriptId, name: script.name, data: script.data },
      accept: [200, 201],
    });
    return {
      status: answer.status,
      requestId: answer.requestId,
      location: answer.location,
      object: readAnswer(answer, ZScript),
    };
  }
  deleteScript(scriptId: string): Promise<DeleteOutcome> {
    return this.#delete(`${PYSCRIPTS}/scripts/${encodeURIComponent(scriptId)}`);
  }

  /** Enables or disables a rating module, or sets its priority; answered with a 302. */
  updateModule(moduleId: string, update: ModuleUpdate): Promise<WriteOutcome<undefined>> {
    if (update.priority !== undefined && !Number.isSafeInteger(update.priority)) {
      throw new RangeError(`priority must be an integer: ${update.priority}`);
    }
    return this.#update(`${MODULES}/${encodeURIComponent(moduleId)}`, {
      module_id: moduleId,
      ...(update.enabled === undefined ? {} : { enabled: update.enabled }),
      ...(update.priority === undefined ? {} : { priority: update.priority }),
    });
  }

  // ------------------------------------------------------------------ probe

  /**
   * Reachability, authentication, API generation and module states. Never throws for what it
   * finds: a failure is reported in `problem`.
   */
  async probe(): Promise<ProbeReport> {
    const report: ProbeReport = {
      reachable: false,
      auth: this.target.kind === "noauth" ? "noauth" : "unknown",
      endpoint: undefined,
      generation: "unknown",
      generationEvidence: undefined,
      modules: undefined,
      problem: undefined,
      requestIds: [],
    };
    const note = (requestId: string | undefined) => {
      if (requestId) report.requestIds.push(requestId);
    };
    try {
      report.endpoint = await this.endpoint();
      if (this.target.kind === "keystone") report.auth = "ok";
      const modules = await this.#call("GET", MODULES, { accept: [200] });
      note(modules.requestId);
      report.reachable = true;
      report.modules = readAnswer(modules, ZModuleList).modules;
      // A filter CloudKitty < 23 does not know is refused before any lookup: 400 "Unknown
      // argument"; 23+ knows it and lists nothing for a service that does not exist.
      const answer = await this.#call("GET", `${HASHMAP}/mappings`, {
        query: { service_id: randomUUID(), is_active: "true" },
        accept: [200, 400],
      });
      note(answer.requestId);
      const fault = ZFault.safeParse(tryParseJson(answer.text));
      if (answer.status === 200) {
        report.generation = "23+";
        report.generationEvidence = "200 to mappings?is_active=true";
      } else if (fault.success && fault.data.faultstring.includes("Unknown argument")) {
        report.generation = "pre-23";
        report.generationEvidence = `400 ${fault.data.faultstring}`;
      } else {
        report.generationEvidence = `400 ${fault.success ? fault.data.faultstring : answer.text.slice(0, 120)}`;
      }
    } catch (error) {
      if (!(error instanceof CloudKittyClientError)) throw error;
      note(error.requestId);
      report.problem = error.message;
      report.reachable = !(error instanceof CloudKittyUnreachableError);
      if (error instanceof CloudKittyAuthError) report.auth = "refused";
      // Keystone gave a token; only its catalog lacked the endpoint.
      if (error instanceof CloudKittyCatalogError) report.auth = "ok";
      if (report.generationEvidence === undefined && report.modules !== undefined) {
        report.generationEvidence = error.message;
      }
    }
    return report;
  }
}

export type ParentFilter = { service_id: string } | { field_id: string } | { group_id: string };

function filterQuery(filter: ParentFilter): Record<string, string> {
  return Object.fromEntries(
    Object.entries(filter).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    ),
  );
}

/** The JSON body of a rule write: explicit nulls, costs and levels as strings. */
function ruleBody(rule: {
  service_id?: string | null;
  field_id?: string | null;
  value?: string | null;
  type?: CkRuleType;
  cost: string;
  level?: string;
  group_id?: string | null;
  tenant_id?: string | null;
}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    service_id: rule.service_id ?? null,
    field_id: rule.field_id ?? null,
    type: rule.type ?? "flat",
    cost: rule.cost,
    group_id: rule.group_id ?? null,
    tenant_id: rule.tenant_id ?? null,
  };
  if (rule.level !== undefined) body.level = rule.level;
  // A service mapping created without `value` reads back "", with `null` as null: keep which.
  if (rule.value !== undefined) body.value = rule.value;
  return body;
}

/** The lifecycle attributes that are set (see RuleLifecycle). */
function lifecycleBody(rule: RuleLifecycle): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of ["start", "end", "name", "description"] as const)
    if (rule[key] !== undefined && rule[key] !== null) body[key] = rule[key];
  return body;
}

function requireDecimal(name: string, text: string): void {
  if (typeof text !== "string" || !isDecimalText(text)) {
    throw new TypeError(`${name} must be decimal text such as "0.5", got ${JSON.stringify(text)}`);
  }
}

function isFault(answer: HttpAnswer): boolean {
  return ZFault.safeParse(tryParseJson(answer.text)).success;
}

/** Turns an unaccepted answer into the error that says what happened. */
function answerError(answer: HttpAnswer, kind: CloudKittyTarget["kind"]): CloudKittyClientError {
  const body = tryParseJson(answer.text);
  const fault = ZFault.safeParse(body);
  if (answer.status === 401 || answer.status === 403) {
    const detail = fault.success
      ? fault.data.faultstring
      : (errorMessage(body) ??
        (answer.status === 401 && kind === "noauth"
          ? "CloudKitty asks for a token: register it with Keystone auth"
          : "refused"));
    return new CloudKittyAuthError(answer.context, answer.status, "cloudkitty", detail);
  }
  if (fault.success) {
    return new CloudKittyFaultError(
      answer.context,
      answer.status,
      fault.data.faultcode,
      fault.data.faultstring,
    );
  }
  return new CloudKittyUnexpectedStatusError(answer.context, answer.status, answer.text);
}

/** keystonemiddleware's `{"error": {"message"}}` and oslo.policy's `{"description"}`. */
function errorMessage(body: unknown): string | undefined {
  const candidate = body as { error?: { message?: unknown }; description?: unknown } | undefined;
  const message = candidate?.error?.message ?? candidate?.description;
  return typeof message === "string" ? message : undefined;
}

function compareText(a: string | null | undefined, b: string | null | undefined): number {
  const x = a ?? "";
  const y = b ?? "";
  return x < y ? -1 : x > y ? 1 : 0;
}

function byName(a: { name: string }, b: { name: string }): number {
  return compareText(a.name, b.name);
}

function compareMappings(a: CkMapping, b: CkMapping): number {
  return (
    compareText(a.value, b.value) ||
    compareText(a.tenant_id, b.tenant_id) ||
    compareText(a.group_id, b.group_id) ||
    compareText(a.mapping_id, b.mapping_id)
  );
}

function compareThresholds(a: CkThreshold, b: CkThreshold): number {
  return (
    compareDecimals(a.level, b.level) ||
    compareText(a.tenant_id, b.tenant_id) ||
    compareText(a.group_id, b.group_id) ||
    compareText(a.threshold_id, b.threshold_id)
  );
}
