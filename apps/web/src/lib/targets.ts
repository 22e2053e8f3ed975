import { z } from "zod";
import { formatDateTime } from "./accounts";

// The Targets page's side of the CloudKitty targets API (issue 14): what a target's connection,
// probe and plan say, in words for operators, and the register/edit form's values to the API's
// input. Secrets only ever travel from the form to the server: nothing here reads one back.

// ------------------------------------------------------------------------------------ address

/** A target's page: the part shown, kept in the address so that a view can be reloaded and shared. */
export const TARGET_TABS = ["overview", "import", "plan", "drift", "runs"] as const;
export type TargetTab = (typeof TARGET_TABS)[number];
export const ZTargetSearch = z.object({
  tab: z.enum(TARGET_TABS).optional().catch(undefined),
  /** The run opened in the run history. */
  run: z.string().min(1).optional().catch(undefined),
  /** The plan shown on the Plan tab (a plan run), so that it survives a reload and can be shared. */
  plan: z.string().min(1).optional().catch(undefined),
});
export type TargetSearch = z.output<typeof ZTargetSearch>;

// --------------------------------------------------------------------------------- connection

export type EndpointInterface = "public" | "internal" | "admin";

/** A target's connection as the API returns it (never with a secret). */
export type TargetConnection =
  | { kind: "noauth"; url: string }
  | {
      kind: "keystone";
      auth_url: string;
      region: string | null;
      interface: EndpointInterface;
      credential:
        | { kind: "application-credential"; id: string }
        | {
            kind: "password";
            username: string;
            user_domain_name: string;
            project_name: string;
            project_domain_name: string;
          };
    };

/** Where the target is and how Ratecard signs in to it, in one line (no secret exists here). */
export function describeConnection(connection: TargetConnection): string {
  if (connection.kind === "noauth") return `${connection.url} (no authentication)`;
  const credential = connection.credential;
  const who =
    credential.kind === "application-credential"
      ? `application credential ${credential.id}`
      : `user ${credential.username} in project ${credential.project_name}`;
  const where = [connection.region, connection.interface].filter(Boolean).join(", ");
  return `Keystone ${connection.auth_url} (${where}), ${who}`;
}

export type CredentialKind = "application-credential" | "password";

/** The register/edit form: every input as typed (strings, checkboxes). */
export interface TargetFormValues {
  name: string;
  mode: "import-source" | "managed";
  prune: boolean;
  pushScripts: boolean;
  pushModules: boolean;
  kind: "noauth" | "keystone";
  url: string;
  authUrl: string;
  region: string;
  interface: EndpointInterface;
  credentialKind: CredentialKind;
  credentialId: string;
  /** The application credential's secret or the user's password: write-only. */
  secret: string;
  username: string;
  userDomainName: string;
  projectName: string;
  projectDomainName: string;
}

export const EMPTY_TARGET_FORM: TargetFormValues = {
  name: "",
  mode: "import-source",
  prune: false,
  pushScripts: false,
  pushModules: false,
  kind: "noauth",
  url: "",
  authUrl: "",
  region: "",
  interface: "public",
  credentialKind: "application-credential",
  credentialId: "",
  secret: "",
  username: "",
  userDomainName: "Default",
  projectName: "",
  projectDomainName: "Default",
};

export interface TargetLike {
  name: string;
  mode: "import-source" | "managed";
  prune: boolean;
  push_scripts: boolean;
  push_modules: boolean;
  connection: TargetConnection;
}

/** The form filled from a stored target; the secret stays empty ("unchanged"). */
export function targetFormValues(target: TargetLike): TargetFormValues {
  const values: TargetFormValues = {
    ...EMPTY_TARGET_FORM,
    name: target.name,
    mode: target.mode,
    prune: target.prune,
    pushScripts: target.push_scripts,
    pushModules: target.push_modules,
    kind: target.connection.kind,
  };
  const connection = target.connection;
  if (connection.kind === "noauth") return { ...values, url: connection.url };
  const keystone = {
    ...values,
    authUrl: connection.auth_url,
    region: connection.region ?? "",
    interface: connection.interface,
    credentialKind: connection.credential.kind,
  };
  return connection.credential.kind === "application-credential"
    ? { ...keystone, credentialId: connection.credential.id }
    : {
        ...keystone,
        username: connection.credential.username,
        userDomainName: connection.credential.user_domain_name,
        projectName: connection.credential.project_name,
        projectDomainName: connection.credential.project_domain_name,
      };
}

/**
 * Whether the stored secret can be kept: editing a Keystone target whose credential kind stays the
 * same. Otherwise a secret must be typed.
 */
export function canKeepSecret(stored: TargetConnection | null, values: TargetFormValues): boolean {
  return (
    stored !== null &&
    stored.kind === "keystone" &&
    values.kind === "keystone" &&
    stored.credential.kind === values.credentialKind
  );
}

const isHttpUrl = (text: string) => {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
};

type FieldErrors = Partial<Record<keyof TargetFormValues, string>>;

/** What is wrong with the form, by field: the messages say what to type, never echo a secret. */
export function validateTargetForm(
  values: TargetFormValues,
  stored: TargetConnection | null,
): FieldErrors {
  const errors: FieldErrors = {};
  if (!values.name.trim()) errors.name = "Enter a name.";
  if (values.kind === "noauth") {
    if (!isHttpUrl(values.url.trim())) errors.url = "Enter CloudKitty's http:// or https:// URL.";
    return errors;
  }
  if (!isHttpUrl(values.authUrl.trim()))
    errors.authUrl = "Enter Keystone's http:// or https:// URL, e.g. http://keystone:5000/v3.";
  const secretNeeded = !canKeepSecret(stored, values);
  if (values.credentialKind === "application-credential") {
    if (!values.credentialId.trim()) errors.credentialId = "Enter the application credential's id.";
    if (secretNeeded && !values.secret)
      errors.secret = "Enter the application credential's secret.";
  } else {
    if (!values.username.trim()) errors.username = "Enter the user name.";
    if (!values.projectName.trim()) errors.projectName = "Enter the project.";
    if (secretNeeded && !values.secret) errors.secret = "Enter the password.";
  }
  return errors;
}

export type ConnectionInput =
  | { kind: "noauth"; url: string }
  | {
      kind: "keystone";
      authUrl: string;
      region?: string;
      interface: EndpointInterface;
      credential:
        | { kind: "application-credential"; id: string; secret?: string }
        | {
            kind: "password";
            username: string;
            password?: string;
            userDomainName: string;
            projectName: string;
            projectDomainName: string;
          };
    };

/**
 * The API's `connection` from the form. An empty secret is left out: the server then keeps the
 * stored one (a credential of the same kind), or refuses.
 */
export function connectionInput(values: TargetFormValues): ConnectionInput {
  if (values.kind === "noauth") return { kind: "noauth", url: values.url.trim() };
  const region = values.region.trim();
  const secret = values.secret ? values.secret : undefined;
  return {
    kind: "keystone",
    authUrl: values.authUrl.trim(),
    ...(region && { region }),
    interface: values.interface,
    credential:
      values.credentialKind === "application-credential"
        ? {
            kind: "application-credential",
            id: values.credentialId.trim(),
            ...(secret !== undefined && { secret }),
          }
        : {
            kind: "password",
            username: values.username.trim(),
            ...(secret !== undefined && { password: secret }),
            userDomainName: values.userDomainName.trim() || "Default",
            projectName: values.projectName.trim(),
            projectDomainName: values.projectDomainName.trim() || "Default",
          },
  };
}

// --------------------------------------------------------------------------------------- probe

export type Generation = "pre-23" | "23+" | "unknown";

export const GENERATION_LABEL: Record<Generation, string> = {
  "pre-23": "before 23 (2025.2)",
  "23+": "23 (2025.2) or later",
  unknown: "unknown",
};

export interface ModuleState {
  module_id: string;
  enabled: boolean;
  priority: number;
}

/** "hashmap on (1), pyscripts off (0)": the rating modules as the probe found them. */
export function describeModules(modules: readonly ModuleState[] | undefined): string {
  if (!modules || modules.length === 0) return "—";
  return [...modules]
    .sort((a, b) => a.module_id.localeCompare(b.module_id))
    .map((m) => `${m.module_id} ${m.enabled ? "on" : "off"} (${m.priority})`)
    .join(", ");
}

// ---------------------------------------------------------------------------------------- plan

export const PLAN_OPS = [
  "create",
  "update",
  "replace",
  "delete",
  "module",
  "unmanaged",
  "duplicate",
  "supersede",
  "frozen",
] as const;
export type PlanOp = (typeof PLAN_OPS)[number];

/**
 * What apply would do: unmanaged and duplicate objects are reported, never changed, and so are
 * "frozen" ones (a change CloudKitty 23+ refuses on a started rule). "supersede" (CloudKitty 23+)
 * ends a started rule at T and creates Ratecard's from T.
 */
export const CHANGING_OPS: readonly PlanOp[] = [
  "create",
  "update",
  "replace",
  "supersede",
  "delete",
  "module",
];

export const OP_LABEL: Record<PlanOp, string> = {
  create: "create",
  update: "update",
  replace: "replace",
  delete: "delete",
  module: "module",
  unmanaged: "unmanaged",
  duplicate: "duplicate",
  supersede: "supersede",
  frozen: "frozen",
};

type Scalar = string | number | boolean | null;

export interface PlanOperation {
  op: PlanOp;
  kind: string;
  path: string;
  ratecard_id: string | null;
  target_id: string | null;
  before: Record<string, Scalar> | null;
  after: Record<string, Scalar> | null;
  changes?: string[] | undefined;
  reason?: string | undefined;
}

/** How many changes apply would make. */
export function changeCount(counts: Partial<Record<PlanOp, number>>): number {
  return CHANGING_OPS.reduce((sum, op) => sum + (counts[op] ?? 0), 0);
}

/** "2 creates, 1 update": the non-zero counts in plan order; "nothing" when all are zero. */
export function describeCounts(
  counts: Partial<Record<PlanOp, number>>,
  ops: readonly PlanOp[] = PLAN_OPS,
): string {
  const parts = ops
    .filter((op) => (counts[op] ?? 0) > 0)
    .map((op) => {
      const n = counts[op] ?? 0;
      return `${n} ${n === 1 ? OP_LABEL[op] : pluralOp(op)}`;
    });
  return parts.length === 0 ? "nothing" : parts.join(", ");
}

function pluralOp(op: PlanOp): string {
  switch (op) {
    case "unmanaged":
      return "unmanaged";
    case "duplicate":
      return "duplicates";
    case "frozen":
      return "frozen";
    case "module":
      return "module changes";
    default:
      return `${op}s`;
  }
}

/** One attribute's change: `before` absent on a create, `after` absent on a delete. */
export interface AttributeChange {
  attribute: string;
  before?: string;
  after?: string;
}

export interface PlanLine {
  op: PlanOp;
  kind: string;
  /** The object within its group: "flavor_name/mappings/m1.small", "(service)/mappings/(service)". */
  label: string;
  path: string;
  changes: AttributeChange[];
  reason?: string;
  key: string;
}

export interface PlanGroup {
  /** A service's name, or "Groups", "Modules", "Scripts". */
  heading: string;
  /** "service", or the section of objects that belong to no service. */
  section: "service" | "groups" | "modules" | "scripts";
  lines: PlanLine[];
  counts: Partial<Record<PlanOp, number>>;
}

// What a rule's line shows for a create or a delete: its price, not every attribute.
// CloudKitty 23+: its validity dates too.
const SHOWN_ON_CREATE = ["type", "cost", "tenant_id", "group", "name", "start", "end"];
// Attributes that are plumbing on a line already placed under its service and parent.
const HIDDEN = new Set(["parent", "service"]);

export function formatScalar(value: Scalar | undefined): string {
  if (value === undefined || value === null) return "none";
  if (typeof value === "boolean") return value ? "on" : "off";
  return String(value);
}

function lineChanges(operation: PlanOperation): AttributeChange[] {
  const { before, after } = operation;
  const pick = (attributes: Record<string, Scalar>) =>
    Object.keys(attributes).filter(
      (key) =>
        !HIDDEN.has(key) &&
        (operation.kind === "script" || operation.kind === "module"
          ? key !== "data"
          : SHOWN_ON_CREATE.includes(key)) &&
        !(attributes[key] === null && key !== "cost"),
    );
  if (before && after) {
    const keys =
      operation.changes ?? Object.keys(after).filter((key) => after[key] !== before[key]);
    return keys
      .filter((key) => !HIDDEN.has(key) || operation.op === "replace")
      .map((key) => ({
        attribute: key,
        before: key === "data" ? "(script code)" : formatScalar(before[key]),
        after: key === "data" ? "(changed code)" : formatScalar(after[key]),
      }));
  }
  if (after) return pick(after).map((key) => ({ attribute: key, after: formatScalar(after[key]) }));
  if (before)
    return pick(before).map((key) => ({ attribute: key, before: formatScalar(before[key]) }));
  return [];
}

function placeOf(path: string): { section: PlanGroup["section"]; heading: string; label: string } {
  const slash = path.indexOf("/");
  const head = slash < 0 ? path : path.slice(0, slash);
  const rest = slash < 0 ? "" : path.slice(slash + 1);
  if (head === "groups") return { section: "groups", heading: "Groups", label: rest };
  if (head === "modules") return { section: "modules", heading: "Rating modules", label: rest };
  if (head === "scripts") return { section: "scripts", heading: "Scripts", label: rest };
  return { section: "service", heading: head, label: rest || "(the service itself)" };
}

const SECTION_ORDER: Record<PlanGroup["section"], number> = {
  modules: 0,
  groups: 1,
  service: 2,
  scripts: 3,
};

/**
 * The plan as a readable diff: one group per service (its fields' and rules' lines under it), then
 * groups, modules and scripts; each line with its attributes before → after.
 */
export function groupPlan(operations: readonly PlanOperation[]): PlanGroup[] {
  const groups = new Map<string, PlanGroup>();
  operations.forEach((operation, index) => {
    const place = placeOf(operation.path);
    const id = `${place.section}:${place.heading}`;
    let group = groups.get(id);
    if (!group) {
      group = { heading: place.heading, section: place.section, lines: [], counts: {} };
      groups.set(id, group);
    }
    group.counts[operation.op] = (group.counts[operation.op] ?? 0) + 1;
    group.lines.push({
      op: operation.op,
      kind: operation.kind,
      label: place.label,
      path: operation.path,
      changes: lineChanges(operation),
      ...(operation.reason && { reason: operation.reason }),
      key: `${index}:${operation.op}:${operation.path}`,
    });
  });
  return [...groups.values()].sort(
    (a, b) =>
      SECTION_ORDER[a.section] - SECTION_ORDER[b.section] || a.heading.localeCompare(b.heading),
  );
}

/** Limits a list to those operations, or every one when `ops` is empty. */
export function filterOperations<T extends { op: PlanOp }>(
  operations: readonly T[],
  ops: readonly PlanOp[],
): T[] {
  return ops.length === 0 ? [...operations] : operations.filter((o) => ops.includes(o.op));
}

export interface ProbeLike {
  reachable: boolean;
  auth: "noauth" | "ok" | "refused" | "unknown";
  generation: Generation;
  modules?: readonly ModuleState[] | undefined;
  problem?: string | undefined;
}

/** The probe's verdict in one sentence. */
export function describeProbe(probe: ProbeLike): string {
  if (!probe.reachable) return `unreachable${probe.problem ? `: ${probe.problem}` : ""}`;
  if (probe.auth === "refused")
    return `authentication refused${probe.problem ? `: ${probe.problem}` : ""}`;
  const modules = probe.modules?.length ? `; modules ${describeModules(probe.modules)}` : "";
  const problem = probe.problem ? ` (${probe.problem})` : "";
  return `reachable, API generation ${GENERATION_LABEL[probe.generation]}${modules}${problem}`;
}

// ---------------------------------------------------------------------------------------- runs

export type RunKind = "import" | "plan" | "apply" | "drift";
export type RunStatus = "ok" | "empty" | "partial" | "failed" | "refused";

export interface RunLike {
  kind: RunKind;
  status: RunStatus;
  actor: string | null;
  ratecard_revision: string | null;
  started_at: string;
  finished_at: string | null;
  summary: Record<string, unknown>;
  operation_count: number;
  error: string | null;
}

/** The numbers of a run's summary (`counts` of a plan, an apply or a drift check). */
export function summaryCounts(summary: Record<string, unknown>): Record<string, number> {
  const counts = summary.counts;
  if (typeof counts !== "object" || counts === null) return {};
  return Object.fromEntries(
    Object.entries(counts).filter(
      (entry): entry is [string, number] => typeof entry[1] === "number",
    ),
  );
}

/** "3 create, 1 update": a summary's non-zero counts. */
export function describeSummary(summary: Record<string, unknown>): string {
  const parts = Object.entries(summaryCounts(summary))
    .filter(([, n]) => n > 0)
    .map(([what, n]) => `${n} ${what}`);
  return parts.length === 0 ? "nothing" : parts.join(", ");
}

export interface DriftBadge {
  tone: "clean" | "dirty" | "unknown";
  text: string;
}

/** The drift badge from the target's last drift check (null: never checked). */
export function driftBadge(run: RunLike | null): DriftBadge {
  if (!run) return { tone: "unknown", text: "not checked" };
  if (run.status === "failed" || run.status === "refused")
    return { tone: "unknown", text: "check failed" };
  const counts = summaryCounts(run.summary);
  const total = Object.keys(counts).length
    ? Object.values(counts).reduce((sum, n) => sum + n, 0)
    : run.operation_count;
  return total === 0
    ? { tone: "clean", text: "no drift" }
    : { tone: "dirty", text: `${total} ${total === 1 ? "difference" : "differences"}` };
}

export const RUN_STATUS_LABEL: Record<RunStatus, string> = {
  ok: "ok",
  empty: "nothing to do",
  partial: "partial",
  failed: "failed",
  refused: "refused",
};

export interface RunOperationRow {
  key: string;
  op: string;
  kind: string;
  path: string;
  /** CloudKitty's HTTP status, when CloudKitty was asked. */
  status: string;
  requestId: string;
  error: string;
}

const text = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : "";

/** A stored run's operations as table rows, whatever each kind of run keeps of them. */
export function runOperationRows(operations: readonly unknown[]): RunOperationRow[] {
  return operations.map((operation, index) => {
    const o = (typeof operation === "object" && operation !== null ? operation : {}) as Record<
      string,
      unknown
    >;
    return {
      key: String(index),
      op: text(o.op) || text(o.kind),
      kind: text(o.object_kind) || (o.op ? text(o.kind) : ""),
      path: text(o.path),
      status: text(o.status),
      requestId: text(o.request_id),
      error: text(o.error),
    };
  });
}

// --------------------------------------------------------------------------------------- drift

export const DRIFT_LABEL: Record<string, string> = {
  missing: "missing in CloudKitty",
  extra: "only in CloudKitty",
  changed: "changed",
  duplicate: "duplicate in CloudKitty",
  module_disabled: "module disabled",
  unknown_metric: "no such metric",
  unknown_metadata: "no such metadata",
};

/** "1 changed, 2 missing in CloudKitty": a drift check's non-zero counts. */
export function describeDrift(counts: Record<string, number>): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${DRIFT_LABEL[kind] ?? kind}`);
  return parts.length === 0 ? "no drift" : parts.join(", ");
}

const ZStoredPlanOperation = z.object({
  op: z.enum(PLAN_OPS),
  kind: z.string(),
  path: z.string(),
  ratecard_id: z.string().nullable(),
  target_id: z.string().nullable(),
  before: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).nullable(),
  after: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).nullable(),
  changes: z.array(z.string()).optional(),
  reason: z.string().optional(),
});

/** A stored plan run's operations as the plan answered them, or null if they are not that. */
export function storedPlanOperations(operations: readonly unknown[]): PlanOperation[] | null {
  const parsed = z.array(ZStoredPlanOperation).safeParse(operations);
  return parsed.success ? parsed.data : null;
}

// -------------------------------------------------------------------------- apply in progress

/** The apply under way on a target, as the target's `apply_in_progress` names it (its lease). */
export interface ApplyInProgressLike {
  since: string;
  until: string;
  actor: string | null;
  plan_id: string | null;
  instance: string | null;
}

/** "Applying since 26 Nov 2026, 03:00 by admin". */
export function describeApplyInProgress(
  apply: ApplyInProgressLike,
  format: (iso: string) => string = formatDateTime,
): string {
  return `Applying since ${format(apply.since)} by ${apply.actor ?? "an unnamed caller"}`;
}

/**
 * Why Apply is unavailable while an apply holds the target (on any Ratecard instance): the server
 * would refuse a second one with a 409. Null when none does.
 */
export function applyBlockedReason(
  apply: ApplyInProgressLike | null,
  format: (iso: string) => string = formatDateTime,
): string | null {
  if (!apply) return null;
  const where = apply.instance ? ` on ${apply.instance}` : "";
  const plan = apply.plan_id ? ` (plan ${apply.plan_id})` : "";
  return (
    `${describeApplyInProgress(apply, format)}${where}${plan}. Another apply to this target ` +
    "waits until it ends: then plan again, since CloudKitty will have changed."
  );
}

/** How often a page that shows an apply under way reads the target again, until it ends. */
export const APPLY_PROGRESS_REFRESH_MS = 5_000;

/** A target query's refetchInterval: while an apply is under way, so that its end shows. */
export function applyProgressRefresh(target: { apply_in_progress: unknown } | undefined) {
  return target?.apply_in_progress ? APPLY_PROGRESS_REFRESH_MS : false;
}
