import {
  CloudKittyFaultError,
  CloudKittyResponseError,
  CloudKittyUnexpectedStatusError,
  CloudKittyUnreachableError,
  decimalsEqual,
  type CkMapping,
  type CkThreshold,
  type CloudKittyClient,
  type DeleteOutcome,
  type WriteOutcome,
} from "@ratecard/cloudkitty";
import type { RuleSetDocument, RuleSetMapping, RuleSetThreshold } from "@ratecard/ruleset";
import { formatMoment, momentMillis } from "./moments.js";
import {
  SUPERSEDE_DELAY_MS,
  type PlanGeneration,
  type TargetMatch,
  type TargetOperation,
  type TargetPlan,
  type TargetPlanOp,
} from "./target-plan.js";

/*
 * Apply: carry out a target plan against CloudKitty through its v1 API, in an order CloudKitty
 * accepts, and report each operation with CloudKitty's status and request id. Framework-free: the
 * caller reads both sides, plans, hands the plan here and stores what comes back.
 *
 * Order: module disables first (a rating module is disabled before its rules are deleted), then the
 * deleting half of replacements (rules, fields, services, groups: children first), then creates,
 * updates and the creating half of replacements (groups, services, fields, mappings, thresholds,
 * scripts: parents first), then prune deletes (children first), then module enables and
 * priorities (a module is enabled once its rules exist). It stops at the first failure and never
 * rolls back: every write done is kept, each new CloudKitty id handed to `onId` as soon as
 * CloudKitty acknowledges it, so that planning again and applying again converges.
 *
 * CloudKitty 17's details: costs and levels travel as JSON strings (the client sends them so);
 * a PUT answered 302 is a success, not followed (the client); a DELETE answered 404 is done; a
 * group is deleted without `recursive` (any value means recursive). A POST that fails without a
 * clear answer (no answer, a timeout, a 5xx, an unreadable body) may have been applied, and
 * CloudKitty accepts a second identical tenant-less mapping with 201: the parent is listed again
 * and a row with the object's natural key is adopted before the POST is tried once more.
 */

export type IdKind = TargetMatch["kind"];

export const APPLY_OUTCOMES = ["done", "adopted", "already_absent", "failed", "not_run"] as const;
export type ApplyOutcome = (typeof APPLY_OUTCOMES)[number];

export interface AppliedRequest {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** CloudKitty's HTTP status; null when no answer came. */
  status: number | null;
  request_id: string | null;
}

export interface AppliedOperation {
  op: TargetPlanOp;
  kind: TargetOperation["kind"];
  path: string;
  ratecard_id: string | null;
  /** CloudKitty's id of the object acted on (for a create or a replacement: the new one). */
  target_id: string | null;
  /** The last request's status and request id (every request is in `requests`). */
  status: number | null;
  request_id: string | null;
  outcome: ApplyOutcome;
  error?: string;
  /** Replace: why (from the plan). */
  reason?: string;
  requests: AppliedRequest[];
}

export type TargetApplyStatus = "ok" | "empty" | "partial" | "failed";

export interface TargetApplyResult {
  /** ok: every operation done; partial: stopped after some; failed: stopped before any. */
  status: TargetApplyStatus;
  operations: AppliedOperation[];
  counts: Record<ApplyOutcome, number>;
  /** The failure it stopped at. */
  error: string | null;
}

export interface TargetApplyInput {
  plan: TargetPlan;
  /** The Ratecard rule set the plan was made from (parents, groups and rules by Ratecard id). */
  ratecard: RuleSetDocument;
  /** Whether script operations are carried out (else they are left out). */
  pushScripts: boolean;
  /** Whether module operations are carried out (else they are left out). */
  pushModules: boolean;
  /** Writes in flight at once within one step (objects of one kind); default 4. */
  concurrency?: number;
  /** A Ratecard object's CloudKitty id, as soon as CloudKitty acknowledged it. */
  onId: (entry: { kind: IdKind; ratecard_id: string; target_id: string }) => Promise<void> | void;
  /** A CloudKitty object deleted (or found gone): its id-map entry, if any, is stale. */
  onRemoved?: (entry: { kind: IdKind; target_id: string }) => Promise<void> | void;
  /**
   * The plan's generation (default "pre-23"). For "23+" (CloudKitty 23 and later) mappings and
   * scripts are written with their validity dates, and `supersede` operations are carried out:
   * the started rule's end is set to T, then Ratecard's rule is created from T.
   */
  generation?: PlanGeneration;
  /**
   * Once aborted, no further CloudKitty request is sent: the apply stops before its next one (the
   * writes in flight finish and are reported) with the signal's reason (an Error's message) as its
   * error. The server aborts it when the apply's lease on the target is lost, so that a holder that
   * can no longer prove it is the only one applying stops writing.
   */
  signal?: AbortSignal;
}

type RuleKind = "mapping" | "threshold";
interface RatecardRule {
  kind: RuleKind;
  rule: RuleSetMapping | RuleSetThreshold;
  serviceId: string | null;
  fieldId: string | null;
}

interface Index {
  groups: Map<string, string>;
  services: Map<string, string>;
  fields: Map<string, { name: string; serviceId: string }>;
  rules: Map<string, RatecardRule>;
  scripts: Map<string, RuleSetDocument["scripts"][number]>;
}

function index(document: RuleSetDocument): Index {
  const out: Index = {
    groups: new Map(document.groups.map((g) => [g.id, g.name])),
    services: new Map(),
    fields: new Map(),
    rules: new Map(),
    scripts: new Map(document.scripts.map((s) => [s.id, s])),
  };
  const add = (
    serviceId: string | null,
    fieldId: string | null,
    mappings: RuleSetMapping[],
    thresholds: RuleSetThreshold[],
  ) => {
    for (const rule of mappings)
      out.rules.set(`mapping:${rule.id}`, { kind: "mapping", rule, serviceId, fieldId });
    for (const rule of thresholds)
      out.rules.set(`threshold:${rule.id}`, { kind: "threshold", rule, serviceId, fieldId });
  };
  for (const service of document.services) {
    out.services.set(service.id, service.name);
    add(service.id, null, service.mappings, service.thresholds);
    for (const field of service.fields) {
      out.fields.set(field.id, { name: field.name, serviceId: service.id });
      add(null, field.id, field.mappings, field.thresholds);
    }
  }
  return out;
}

/** A failure after which CloudKitty may or may not have carried out the request. */
function isAmbiguous(error: unknown): boolean {
  if (error instanceof CloudKittyUnreachableError || error instanceof CloudKittyResponseError)
    return true;
  return (
    (error instanceof CloudKittyFaultError || error instanceof CloudKittyUnexpectedStatusError) &&
    error.status >= 500
  );
}

function failedRequest(method: AppliedRequest["method"], error: unknown): AppliedRequest {
  const e = error as { status?: unknown; requestId?: unknown };
  return {
    method,
    status: typeof e.status === "number" ? e.status : null,
    request_id: typeof e.requestId === "string" ? e.requestId : null,
  };
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** CloudKitty's id as the conversion keeps it (lower case), so map entries compare. */
const norm = (id: string) => id.toLowerCase();

class ApplyStop extends Error {}

/** The caller's signal was aborted: no further request is sent. */
class ApplyAborted extends Error {}

const abortReason = (signal: AbortSignal) =>
  signal.reason instanceof Error
    ? signal.reason.message
    : typeof signal.reason === "string"
      ? signal.reason
      : "the apply was aborted";

const FORWARD: TargetOperation["kind"][] = [
  "group",
  "service",
  "field",
  "mapping",
  "threshold",
  "script",
];
const REVERSE: TargetOperation["kind"][] = [
  "mapping",
  "threshold",
  "script",
  "field",
  "service",
  "group",
];

export async function applyTargetPlan(
  client: CloudKittyClient,
  input: TargetApplyInput,
): Promise<TargetApplyResult> {
  const ratecard = index(input.ratecard);
  const concurrency = Math.max(1, input.concurrency ?? 4);
  // Ratecard id -> CloudKitty id: this apply's creations win over the plan's pairings (a replaced
  // parent's old id is gone).
  const paired = new Map(
    input.plan.matched.map((m) => [`${m.kind}:${m.ratecard_id}`, m.target_id]),
  );
  const created = new Map<string, string>();
  // CloudKitty ids that belong to some Ratecard object: never adopted for another one.
  const owned = new Set(input.plan.matched.map((m) => `${m.kind}:${norm(m.target_id)}`));

  const v23 = input.generation === "23+";
  const wanted = input.plan.operations.filter((o) => {
    if (o.op === "unmanaged" || o.op === "duplicate" || o.op === "frozen") return false;
    if (o.kind === "script" && !input.pushScripts) return false;
    if (o.kind === "module" && !input.pushModules) return false;
    return true;
  });
  const applied = new Map<TargetOperation, AppliedOperation>();
  const results: AppliedOperation[] = [];
  const entry = (o: TargetOperation): AppliedOperation => {
    let found = applied.get(o);
    if (!found) {
      found = {
        op: o.op,
        kind: o.kind,
        path: o.path,
        ratecard_id: o.ratecard_id,
        target_id: o.target_id,
        status: null,
        request_id: null,
        outcome: "not_run",
        ...(o.reason ? { reason: o.reason } : {}),
        requests: [],
      };
      applied.set(o, found);
      results.push(found);
    }
    return found;
  };
  /** Before each CloudKitty request: stops the operation once the caller aborted the apply. */
  const proceed = () => {
    if (input.signal?.aborted) throw new ApplyAborted(abortReason(input.signal));
  };
  const note = (a: AppliedOperation, request: AppliedRequest) => {
    a.requests.push(request);
    a.status = request.status;
    a.request_id = request.request_id;
  };

  const ckId = (kind: IdKind, ratecardId: string): string => {
    const id = created.get(`${kind}:${ratecardId}`) ?? paired.get(`${kind}:${ratecardId}`);
    if (id === undefined) {
      throw new ApplyStop(
        `no CloudKitty id for ${kind} ${ratecardId} (its parent was not created)`,
      );
    }
    return id;
  };
  const remember = async (kind: IdKind, ratecardId: string, targetId: string) => {
    const id = norm(targetId);
    created.set(`${kind}:${ratecardId}`, id);
    owned.add(`${kind}:${id}`);
    await input.onId({ kind, ratecard_id: ratecardId, target_id: id });
  };

  /** A PUT or DELETE: the same request again is harmless, so an ambiguous failure is retried once. */
  async function idempotent<T extends { status: number; requestId: string | undefined }>(
    a: AppliedOperation,
    method: "PUT" | "DELETE",
    send: () => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      proceed();
      try {
        const outcome = await send();
        note(a, { method, status: outcome.status, request_id: outcome.requestId ?? null });
        return outcome;
      } catch (error) {
        note(a, failedRequest(method, error));
        if (attempt === 0 && isAmbiguous(error)) continue;
        throw error;
      }
    }
  }

  /**
   * A POST: after an ambiguous failure, the parent's list is read and a row with the object's
   * natural key that no other Ratecard object owns is adopted; else the POST is tried once more.
   */
  async function create<T>(
    a: AppliedOperation,
    kind: IdKind,
    send: () => Promise<WriteOutcome<T>>,
    idOf: (object: T) => string,
    relist: () => Promise<{ id: string; exact: boolean }[]>,
  ): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      proceed();
      try {
        const outcome = await send();
        note(a, { method: "POST", status: outcome.status, request_id: outcome.requestId ?? null });
        return idOf(outcome.object);
      } catch (error) {
        note(a, failedRequest("POST", error));
        if (!isAmbiguous(error)) throw error;
        let rows;
        proceed();
        try {
          rows = await relist();
          note(a, { method: "GET", status: 200, request_id: null });
        } catch (listError) {
          note(a, failedRequest("GET", listError));
          throw listError;
        }
        const free = rows.filter((row) => !owned.has(`${kind}:${norm(row.id)}`));
        const adopted = free.find((row) => row.exact) ?? free[0];
        if (adopted) {
          a.outcome = "adopted";
          return adopted.id;
        }
        if (attempt > 0) throw error;
      }
    }
  }

  const groupCk = (groupId: string | null) => (groupId === null ? null : ckId("group", groupId));

  function ruleOf(o: TargetOperation): RatecardRule {
    const found = ratecard.rules.get(`${o.kind}:${o.ratecard_id}`);
    if (!found) throw new ApplyStop(`${o.path}: not in Ratecard's rule set`);
    return found;
  }

  const parentOf = (r: RatecardRule) =>
    r.fieldId !== null
      ? ({ field_id: ckId("field", r.fieldId) } as const)
      : ({ service_id: ckId("service", r.serviceId!) } as const);

  /** A listed rule matches the wanted one by natural key (exact: same type and cost too). */
  function sameRule(r: RatecardRule, group: string | null, row: CkMapping | CkThreshold) {
    const tenant = row.tenant_id === "" ? null : row.tenant_id;
    const rowGroup = row.group_id === null || row.group_id === "" ? null : norm(row.group_id);
    if (tenant !== r.rule.tenant_id || rowGroup !== (group === null ? null : norm(group)))
      return false;
    if (r.kind === "mapping") {
      const value = "value" in row ? row.value : null;
      const want = (r.rule as RuleSetMapping).value;
      if (r.fieldId === null ? value !== null && value !== "" : value !== want) return false;
    } else if (!decimalsEqual((row as CkThreshold).level, (r.rule as RuleSetThreshold).level)) {
      return false;
    }
    return true;
  }

  async function createOne(
    o: TargetOperation,
    a: AppliedOperation,
    options: { force?: boolean } = {},
  ): Promise<void> {
    const rid = o.ratecard_id!;
    let id: string;
    switch (o.kind) {
      case "group": {
        const name = ratecard.groups.get(rid)!;
        id = await create(
          a,
          "group",
          () => client.createGroup(name),
          (g) => g.group_id,
          async () =>
            (await client.listGroups())
              .filter((g) => g.name === name)
              .map((g) => ({ id: g.group_id, exact: true })),
        );
        break;
      }
      case "service": {
        const name = ratecard.services.get(rid)!;
        id = await create(
          a,
          "service",
          () => client.createService(name),
          (s) => s.service_id,
          async () =>
            (await client.listServices())
              .filter((s) => s.name === name)
              .map((s) => ({ id: s.service_id, exact: true })),
        );
        break;
      }
      case "field": {
        const field = ratecard.fields.get(rid)!;
        const serviceId = ckId("service", field.serviceId);
        id = await create(
          a,
          "field",
          () => client.createField({ service_id: serviceId, name: field.name }),
          (f) => f.field_id,
          async () =>
            (await client.listFields(serviceId))
              .filter((f) => f.name === field.name)
              .map((f) => ({ id: f.field_id, exact: true })),
        );
        break;
      }
      case "mapping":
      case "threshold": {
        const r = ruleOf(o);
        const parent = parentOf(r);
        const group = groupCk(r.rule.group_id);
        const common = {
          ...parent,
          type: r.rule.type,
          cost: r.rule.cost,
          group_id: group,
          tenant_id: r.rule.tenant_id,
        };
        const exact = (row: CkMapping | CkThreshold) =>
          row.type === r.rule.type && decimalsEqual(row.cost, r.rule.cost);
        if (r.kind === "mapping") {
          const value = (r.rule as RuleSetMapping).value;
          const lifecycle = v23 ? lifecycle23(o, r.rule) : {};
          id = await create(
            a,
            "mapping",
            () =>
              client.createMapping(
                { ...common, ...(r.fieldId === null ? {} : { value }), ...lifecycle },
                { force: options.force === true },
              ),
            (m) => m.mapping_id,
            async () =>
              (await client.listMappings(parent))
                .filter((m) => sameRule(r, group, m))
                .map((m) => ({ id: m.mapping_id, exact: exact(m) })),
          );
        } else {
          const level = (r.rule as RuleSetThreshold).level;
          id = await create(
            a,
            "threshold",
            () => client.createThreshold({ ...common, level }),
            (t) => t.threshold_id,
            async () =>
              (await client.listThresholds(parent))
                .filter((t) => sameRule(r, group, t))
                .map((t) => ({ id: t.threshold_id, exact: exact(t) })),
          );
        }
        break;
      }
      case "script": {
        const script = ratecard.scripts.get(rid)!;
        const lifecycle = v23 ? lifecycle23(o, script) : {};
        id = await create(
          a,
          "script",
          () =>
            client.createScript(
              { ...lifecycle, name: script.name, data: script.data },
              { force: options.force === true },
            ),
          (s) => s.script_id,
          async () =>
            (await client.listScripts())
              .filter((s) => s.name === script.name)
              .map((s) => ({ id: s.script_id, exact: s.data === script.data })),
        );
        break;
      }
      default:
        throw new ApplyStop(`${o.path}: cannot create a ${o.kind}`);
    }
    a.target_id = norm(id);
    await remember(o.kind, rid, id);
    if (v23 && follows(o)) await endFollower(o, a, id);
    if (a.outcome !== "adopted") a.outcome = "done";
  }

  /**
   * A CloudKitty 23+ rule that follows another is created without its end (CloudKitty counts a new
   * rule with an end that starts where the other ends as an overlap) and, when it has one, given
   * its end by a PUT right after.
   */
  const follows = (o: TargetOperation) =>
    o.op === "supersede" || (o.op === "create" && o.reason !== undefined);

  /** The dates, name and description a 23+ create sends (see `follows`). */
  function lifecycle23(
    o: TargetOperation,
    rule: {
      start?: string;
      end?: string | null;
      name?: string | null;
      description?: string | null;
    },
  ) {
    const start = momentMillis(typeof o.after?.start === "string" ? o.after.start : rule.start);
    const follower = follows(o);
    return {
      // A start that has come is left to CloudKitty (its own now): a start in the past needs force.
      ...(start !== null && start > Date.now() ? { start: formatMoment(start) } : {}),
      ...(!follower && rule.end ? { end: rule.end } : {}),
      // The superseded rule keeps the name (CloudKitty keeps names unique): the follower gets one of CloudKitty's.
      ...(!follower && rule.name ? { name: rule.name } : {}),
      ...(rule.description ? { description: rule.description } : {}),
    };
  }

  async function endFollower(o: TargetOperation, a: AppliedOperation, targetId: string) {
    if (o.kind === "script") {
      const script = ratecard.scripts.get(o.ratecard_id!)!;
      if (!script.end) return;
      const created = await client.getScript(targetId);
      const notStarted = (momentMillis(created.start) ?? 0) > Date.now();
      await idempotent(a, "PUT", () =>
        client.updateScript23(targetId, {
          name: created.name,
          ...(notStarted ? { data: script.data, description: script.description ?? null } : {}),
          end: script.end ?? null,
        }),
      );
      return;
    }
    const r = ruleOf(o);
    if (!r.rule.end) return;
    const created = await client.getMapping(targetId);
    const notStarted = (momentMillis(created.start) ?? 0) > Date.now();
    await idempotent(a, "PUT", () =>
      client.updateMapping23(targetId, {
        cost: created.cost,
        type: created.type,
        ...(created.value ? { value: created.value } : {}),
        ...(created.tenant_id ? { tenant_id: created.tenant_id } : {}),
        ...(notStarted ? { description: created.description ?? null } : {}),
        end: r.rule.end ?? null,
      }),
    );
  }

  /** The end a 23+ PUT sends: one that has passed (or is about to) becomes the apply's moment. */
  const endToSend = (end: unknown): string | null => {
    const time = momentMillis(typeof end === "string" ? end : null);
    if (time === null) return null;
    return formatMoment(time > Date.now() + 1000 ? time : Date.now() + SUPERSEDE_DELAY_MS);
  };

  /** A 23+ update: in full while CloudKitty's has not started, else its end only. */
  async function update23(o: TargetOperation, a: AppliedOperation): Promise<void> {
    const targetId = o.target_id!;
    const before = o.before ?? {};
    const after = o.after ?? {};
    const text = (v: unknown) => (typeof v === "string" ? v : null);
    const started = (momentMillis(text(before.start)) ?? 0) <= Date.now();
    if (o.kind === "script") {
      const script = ratecard.scripts.get(o.ratecard_id!)!;
      await idempotent(a, "PUT", () =>
        client.updateScript23(
          targetId,
          started
            ? { name: String(before.name), end: endToSend(after.end) }
            : {
                name: String(before.name),
                data: script.data,
                ...(text(after.start) ? { start: text(after.start) } : {}),
                end: text(after.end),
                description: text(after.description),
              },
        ),
      );
      return;
    }
    const value = text(before.value);
    const tenant = text(before.tenant_id);
    await idempotent(a, "PUT", () =>
      client.updateMapping23(
        targetId,
        started
          ? {
              cost: String(before.cost),
              type: before.type === "rate" ? "rate" : "flat",
              ...(value ? { value } : {}),
              ...(tenant ? { tenant_id: tenant } : {}),
              end: endToSend(after.end),
            }
          : {
              cost: String(after.cost),
              type: after.type === "rate" ? "rate" : "flat",
              ...(value ? { value } : {}),
              ...(tenant ? { tenant_id: tenant } : {}),
              ...(text(after.start) ? { start: text(after.start) } : {}),
              end: text(after.end),
              description: text(after.description),
            },
      ),
    );
  }

  /**
   * A 23+ supersession: CloudKitty's started rule ends at T, then Ratecard's is created from T
   * (force: T may have come by then), T being Ratecard's start when later, else now plus
   * SUPERSEDE_DELAY_MS (CloudKitty refuses an end in the past).
   */
  async function supersedeOne(o: TargetOperation, a: AppliedOperation): Promise<void> {
    const targetId = o.target_id!;
    const before = o.before ?? {};
    const text = (v: unknown) => (typeof v === "string" ? v : null);
    const ratecardStart =
      o.kind === "script" ? ratecard.scripts.get(o.ratecard_id!)?.start : ruleOf(o).rule.start;
    const moment = formatMoment(
      Math.max(momentMillis(ratecardStart) ?? 0, Date.now() + SUPERSEDE_DELAY_MS),
    );
    if (o.kind === "script") {
      await idempotent(a, "PUT", () =>
        client.updateScript23(targetId, { name: String(before.name), end: moment }),
      );
    } else {
      const value = text(before.value);
      const tenant = text(before.tenant_id);
      await idempotent(a, "PUT", () =>
        client.updateMapping23(targetId, {
          cost: String(before.cost),
          type: before.type === "rate" ? "rate" : "flat",
          ...(value ? { value } : {}),
          ...(tenant ? { tenant_id: tenant } : {}),
          end: moment,
        }),
      );
    }
    await createOne({ ...o, after: { ...(o.after ?? {}), start: moment } }, a, { force: true });
  }

  async function updateOne(o: TargetOperation, a: AppliedOperation): Promise<void> {
    const targetId = o.target_id!;
    if (v23 && (o.kind === "mapping" || o.kind === "script")) {
      await update23(o, a);
      await remember(o.kind, o.ratecard_id!, targetId);
      a.outcome = "done";
      return;
    }
    if (o.kind === "mapping" || o.kind === "threshold") {
      const r = ruleOf(o);
      const body = {
        service_id: null,
        field_id: null,
        ...parentOf(r),
        type: r.rule.type,
        cost: r.rule.cost,
        group_id: groupCk(r.rule.group_id),
        tenant_id: r.rule.tenant_id,
      };
      if (r.kind === "mapping") {
        const value = r.fieldId === null ? null : (r.rule as RuleSetMapping).value;
        await idempotent(a, "PUT", () => client.updateMapping(targetId, { ...body, value }));
      } else {
        const level = (r.rule as RuleSetThreshold).level;
        await idempotent(a, "PUT", () => client.updateThreshold(targetId, { ...body, level }));
      }
    } else if (o.kind === "script") {
      const script = ratecard.scripts.get(o.ratecard_id!)!;
      await idempotent(a, "PUT", () => client.updateScript(targetId, script));
    } else {
      throw new ApplyStop(`${o.path}: CloudKitty has no update for a ${o.kind}`);
    }
    // An update of an object paired by natural key or same id also settles its map entry.
    await remember(o.kind, o.ratecard_id!, targetId);
    a.outcome = "done";
  }

  async function deleteOne(o: TargetOperation, a: AppliedOperation): Promise<void> {
    const targetId = o.target_id!;
    const send = (): Promise<DeleteOutcome> => {
      switch (o.kind) {
        case "mapping":
          return client.deleteMapping(targetId);
        case "threshold":
          return client.deleteThreshold(targetId);
        case "field":
          return client.deleteField(targetId);
        case "service":
          return client.deleteService(targetId);
        // Without `recursive`: CloudKitty 17 reads any value of it as true.
        case "group":
          return client.deleteGroup(targetId);
        case "script":
          return client.deleteScript(targetId);
        default:
          throw new ApplyStop(`${o.path}: cannot delete a ${o.kind}`);
      }
    };
    const outcome = await idempotent(a, "DELETE", send);
    await input.onRemoved?.({ kind: o.kind as IdKind, target_id: norm(targetId) });
    if (o.op === "delete") a.outcome = outcome.alreadyAbsent ? "already_absent" : "done";
  }

  async function moduleOne(o: TargetOperation, a: AppliedOperation): Promise<void> {
    const after = o.after ?? {};
    const update: { enabled?: boolean; priority?: number } = {};
    for (const change of o.changes ?? []) {
      if (change === "enabled") update.enabled = after.enabled === true;
      if (change === "priority") update.priority = Number(after.priority);
    }
    await idempotent(a, "PUT", () => client.updateModule(o.target_id!, update));
    a.outcome = "done";
  }

  let stopped: string | null = null;
  /** Runs `work` over `ops` with `concurrency` in flight; after a failure nothing new starts. */
  async function step(
    ops: TargetOperation[],
    work: (o: TargetOperation, a: AppliedOperation) => Promise<void>,
  ) {
    let next = 0;
    const worker = async () => {
      while (stopped === null && next < ops.length) {
        // Aborted between operations: the next one is not started (it shows as not run).
        if (input.signal?.aborted) {
          stopped = abortReason(input.signal);
          break;
        }
        const o = ops[next++]!;
        const a = entry(o);
        try {
          await work(o, a);
        } catch (error) {
          if (error instanceof ApplyAborted) {
            stopped ??= error.message;
            // Stopped before its first request: nothing of it reached CloudKitty.
            if (a.requests.length === 0) continue;
          }
          a.outcome = "failed";
          a.error = describe(error);
          stopped ??= `${o.path}: ${describe(error)}`;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, ops.length) }, worker));
  }
  const ofKind = (ops: TargetOperation[], kind: TargetOperation["kind"]) =>
    ops.filter((o) => o.kind === kind);

  const modules = wanted.filter((o) => o.kind === "module");
  const disables = modules.filter((o) => o.after?.enabled === false && o.before?.enabled !== false);
  const laterModules = modules.filter((o) => !disables.includes(o));
  const replaces = wanted.filter((o) => o.op === "replace");
  const upserts = wanted.filter(
    (o) => o.op === "create" || o.op === "update" || o.op === "replace" || o.op === "supersede",
  );
  const prunes = wanted.filter((o) => o.op === "delete");

  const phases: (() => Promise<void>)[] = [
    () => step(disables, moduleOne),
    ...REVERSE.map((kind) => () => step(ofKind(replaces, kind), deleteOne)),
    ...FORWARD.map(
      (kind) => () =>
        step(ofKind(upserts, kind), (o, a) =>
          o.op === "supersede"
            ? supersedeOne(o, a)
            : o.op === "update"
              ? updateOne(o, a)
              : createOne(o, a),
        ),
    ),
    ...REVERSE.map((kind) => () => step(ofKind(prunes, kind), deleteOne)),
    () => step(laterModules, moduleOne),
  ];
  for (const phase of phases) {
    if (stopped === null && input.signal?.aborted) stopped = abortReason(input.signal);
    if (stopped !== null) break;
    await phase();
  }
  // Every operation shows in the answer (those never reached as not run), in the order it is
  // carried out; a replacement where its creating half is.
  const sequence = [
    ...disables,
    ...FORWARD.flatMap((kind) => ofKind(upserts, kind)),
    ...REVERSE.flatMap((kind) => ofKind(prunes, kind)),
    ...laterModules,
  ];
  for (const o of sequence) entry(o);
  const order = new Map(sequence.map((o, i) => [applied.get(o)!, i]));
  results.sort((x, y) => order.get(x)! - order.get(y)!);

  const counts = Object.fromEntries(APPLY_OUTCOMES.map((o) => [o, 0])) as Record<
    ApplyOutcome,
    number
  >;
  for (const r of results) counts[r.outcome]++;
  const progressed = results.some((r) =>
    r.requests.some((q) => q.method !== "GET" && q.status !== null && q.status < 400),
  );
  const status: TargetApplyStatus =
    results.length === 0 ? "empty" : stopped === null ? "ok" : progressed ? "partial" : "failed";
  return { status, operations: results, counts, error: stopped };
}
