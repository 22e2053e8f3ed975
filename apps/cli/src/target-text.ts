// CloudKitty targets as the CLI prints them: plain text for a terminal or a CI log. The shapes are
// the REST answers of /v1/ratecard/targets (docs/cloudkitty-targets.md), declared here rather than
// imported from the server's packages: the CLI speaks HTTP only.

type Value = string | number | boolean | null;

export interface Target {
  target_id: string;
  name: string;
  mode: string;
  prune: boolean;
  push_scripts?: boolean;
  push_modules?: boolean;
  connection:
    | { kind: "noauth"; url: string }
    | {
        kind: "keystone";
        auth_url: string;
        region: string | null;
        interface: string;
        credential: { kind: string; id?: string; username?: string; project_name?: string };
      };
  has_secret: boolean;
  created_at: string;
  updated_at: string;
  last_probe: Probe | null;
  last_import: {
    merge: boolean;
    revision: string;
    counts: Record<string, number>;
    duplicates: number;
    skipped: number;
    conflicts: number;
    at: string;
  } | null;
  /** The apply under way on the target, on any Ratecard instance (absent from older servers). */
  apply_in_progress?: ApplyInProgress | null;
}

export interface ApplyInProgress {
  since: string;
  until: string;
  actor: string | null;
  plan_id: string | null;
  instance: string | null;
}

export interface Probe {
  reachable: boolean;
  auth: string;
  endpoint?: string;
  generation: string;
  generationEvidence?: string;
  modules?: { module_id: string; enabled: boolean; priority: number }[];
  problem?: string;
  at: string;
}

export interface TargetOperation {
  op: string;
  kind: string;
  path: string;
  ratecard_id: string | null;
  target_id: string | null;
  before: Record<string, Value> | null;
  after: Record<string, Value> | null;
  changes?: string[];
  reason?: string;
}

export interface TargetPlan {
  plan_id: string;
  target_id: string;
  ratecard_revision: string;
  generation: string;
  prune: boolean;
  notes?: string[];
  left_out?: { scheduled: number; ended: number };
  doublePrecision?: boolean;
  operations: TargetOperation[];
  counts: Record<string, number>;
  skipped?: { kind: string; id: string; where: string; reason: string }[];
}

export interface TargetApply {
  run_id: string;
  plan_id: string;
  status: string;
  ratecard_revision?: string;
  operations: {
    op: string;
    kind: string;
    path: string;
    status: number | null;
    request_id: string | null;
    outcome?: string;
    error?: string;
  }[];
  counts: Record<string, number>;
  error?: string | null;
}

export interface TargetImport {
  run_id?: string;
  merge: boolean;
  planned_revision: string;
  revision: string;
  report: {
    counts: Record<string, number>;
    duplicates: {
      kind: string;
      parent: string;
      key: string | null;
      kept: { id: string; cost: string };
      dropped: { id: string; cost: string }[];
    }[];
    skipped: { kind: string; id: string; where: string; reason: string }[];
    notes: string[];
  };
  conflicts: { kind: string; id: string; where: string; reason: string }[];
}

export interface Drift {
  run_id: string;
  checked_at: string;
  last_apply: {
    run_id: string;
    finished_at: string | null;
    actor: string | null;
    ratecard_revision: string | null;
  } | null;
  double_precision: boolean;
  differences: {
    kind: string;
    object_kind: string;
    path: string;
    ratecard_id: string | null;
    target_id: string | null;
    field?: string;
    expected?: unknown;
    actual?: unknown;
    against: string;
    note?: string;
  }[];
  counts?: Record<string, number>;
  notes?: string[];
}

export interface Run {
  run_id: string;
  kind: string;
  status: string;
  actor: string | null;
  ratecard_revision: string | null;
  plan_id: string | null;
  started_at: string;
  finished_at: string | null;
  operation_count: number;
  error: string | null;
}

/**
 * The operations an apply would carry out. Unmanaged, duplicate and frozen objects (a change
 * CloudKitty 23+ refuses on a started rule) are only reported; a supersede (23+: the started rule
 * ends at T, Ratecard's starts at T) is a change.
 */
export const CHANGING_OPS = [
  "create",
  "update",
  "replace",
  "supersede",
  "delete",
  "module",
] as const;

export function changeCount(plan: TargetPlan): number {
  return CHANGING_OPS.reduce((sum, op) => sum + (plan.counts[op] ?? 0), 0);
}

function show(value: unknown): string {
  if (value === null || value === undefined) return "null";
  const text = JSON.stringify(value);
  return text.length > 120
    ? `${text.slice(0, 60)}..." (${typeof value === "string" ? value.length : text.length} characters)`
    : text;
}

/** Columns padded to their widest cell; the last one is not padded. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join("\n")}\n`;
}

function where(target: Target): string {
  const c = target.connection;
  return c.kind === "noauth" ? c.url : `${c.auth_url} (Keystone)`;
}

export function formatTargets(targets: Target[]): string {
  if (targets.length === 0) return "No CloudKitty targets.\n";
  return table(
    ["NAME", "ID", "MODE", "GENERATION", "LAST IMPORT", "CLOUDKITTY"],
    targets.map((t) => [
      t.name,
      t.target_id,
      t.mode,
      t.last_probe?.generation ?? "-",
      t.last_import?.at ?? "-",
      where(t),
    ]),
  );
}

function formatProbeLines(probe: Probe): string[] {
  const lines = [
    `reachable:  ${probe.reachable ? "yes" : "no"}`,
    `auth:       ${probe.auth}`,
    `generation: ${probe.generation}${probe.generationEvidence ? ` (${probe.generationEvidence})` : ""}`,
  ];
  if (probe.endpoint) lines.push(`endpoint:   ${probe.endpoint}`);
  if (probe.modules?.length)
    lines.push(
      `modules:    ${probe.modules
        .map((m) => `${m.module_id} ${m.enabled ? "enabled" : "disabled"} (priority ${m.priority})`)
        .join(", ")}`,
    );
  if (probe.problem) lines.push(`problem:    ${probe.problem}`);
  lines.push(`at:         ${probe.at}`);
  return lines;
}

export function formatProbe(probe: Probe): string {
  return `${formatProbeLines(probe).join("\n")}\n`;
}

export function formatTarget(target: Target): string {
  const c = target.connection;
  const lines = [
    `name:         ${target.name}`,
    `id:           ${target.target_id}`,
    `mode:         ${target.mode}`,
    `prune:        ${target.prune}`,
    `push_scripts: ${target.push_scripts ?? false}`,
    `push_modules: ${target.push_modules ?? false}`,
  ];
  if (c.kind === "noauth") lines.push(`connection:   noauth ${c.url}`);
  else {
    const who =
      c.credential.kind === "application-credential"
        ? `application credential ${c.credential.id ?? ""}`
        : `user ${c.credential.username ?? ""} in project ${c.credential.project_name ?? ""}`;
    lines.push(
      `connection:   Keystone ${c.auth_url}, region ${c.region ?? "-"}, ${c.interface} endpoint, ${who}`,
    );
  }
  lines.push(`secret:       ${target.has_secret ? "set (write-only)" : "none"}`);
  lines.push(`created:      ${target.created_at}`, `updated:      ${target.updated_at}`);
  const applying = target.apply_in_progress;
  if (applying)
    lines.push(
      `applying:     since ${applying.since} by ${applying.actor ?? "an unnamed caller"} on ` +
        `${applying.instance ?? "?"} (plan ${applying.plan_id ?? "?"}); its lease lapses at ` +
        `${applying.until} unless renewed. Another apply is refused until it ends.`,
    );
  else if (applying === null) lines.push("applying:     no");
  if (target.last_probe)
    lines.push("last probe:", ...formatProbeLines(target.last_probe).map((l) => `  ${l}`));
  else lines.push("last probe:   never");
  const last = target.last_import;
  if (last)
    lines.push(
      `last import:  ${last.at}${last.merge ? " (merge)" : ""}, revision ${last.revision}: ` +
        `${last.counts.mappings ?? 0} mappings, ${last.counts.thresholds ?? 0} thresholds, ` +
        `${last.duplicates} duplicates, ${last.skipped} skipped, ${last.conflicts} conflicts`,
    );
  else lines.push("last import:  never");
  return `${lines.join("\n")}\n`;
}

const SIGN: Record<string, string> = {
  create: "+",
  update: "~",
  replace: "±",
  delete: "-",
  unmanaged: "?",
  duplicate: "!",
  module: "~",
};

function attributes(record: Record<string, Value> | null): string {
  if (!record) return "";
  const parts = Object.entries(record)
    .filter(([key, value]) => value !== null && key !== "parent" && key !== "data")
    .map(([key, value]) => `${key} ${typeof value === "string" ? value : show(value)}`);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

export function formatTargetPlan(plan: TargetPlan, targetName: string): string {
  const lines: string[] = [];
  const counts = Object.entries(plan.counts)
    .filter(([, n]) => n > 0)
    .map(([op, n]) => `${n} ${op}`)
    .join(", ");
  const head =
    `Plan ${plan.plan_id} for ${targetName} (CloudKitty ${plan.generation}) against Ratecard ` +
    `revision ${plan.ratecard_revision}`;
  if (plan.operations.length === 0) lines.push(`${head}: no changes.`);
  else lines.push(`${head}: ${counts}.`, "");
  const width = Math.max(0, ...plan.operations.map((op) => op.kind.length));
  for (const operation of plan.operations) {
    const changed = operation.op === "update" || operation.op === "module";
    lines.push(
      `  ${SIGN[operation.op] ?? " "} ${operation.op.padEnd(9)} ${operation.kind.padEnd(width)} ${operation.path}` +
        (changed ? "" : attributes(operation.after ?? operation.before)),
    );
    if (changed) {
      for (const key of operation.changes ?? [])
        lines.push(
          `        ${key}: ${show(operation.before?.[key])} -> ${show(operation.after?.[key])}`,
        );
    }
    if (operation.reason) lines.push(`        (${operation.reason})`);
  }
  for (const skipped of plan.skipped ?? [])
    lines.push(`  skipped ${skipped.kind} ${skipped.where}: ${skipped.reason}`);
  if (plan.notes?.length) lines.push("", ...plan.notes.map((note) => `Note: ${note}`));
  return `${lines.join("\n")}\n`;
}

export function formatApply(result: TargetApply): string {
  const lines: string[] = [];
  for (const op of result.operations) {
    const outcome = op.outcome ?? (op.error ? "failed" : "done");
    lines.push(
      `  ${outcome.padEnd(14)} ${op.op} ${op.kind} ${op.path}` +
        (op.status === null ? "" : ` [${op.status}${op.request_id ? ` ${op.request_id}` : ""}]`) +
        (op.error ? `: ${op.error}` : ""),
    );
  }
  const counts = Object.entries(result.counts)
    .filter(([, n]) => n > 0)
    .map(([outcome, n]) => `${n} ${outcome}`)
    .join(", ");
  lines.push(
    `Apply ${result.run_id} (plan ${result.plan_id}): ${result.status}${counts ? `, ${counts}` : ""}.`,
  );
  if (result.error) lines.push(`Error: ${result.error}`);
  if (result.status === "partial" || result.status === "failed")
    lines.push("Nothing was rolled back: plan and apply again to converge.");
  return `${lines.join("\n")}\n`;
}

export function formatImport(result: TargetImport): string {
  const counts = Object.entries(result.report.counts)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(", ");
  const lines = [
    `Imported${result.merge ? " (merge)" : ""}: ${counts}; revision ${result.planned_revision} -> ${result.revision}.`,
  ];
  for (const d of result.report.duplicates)
    lines.push(
      `  duplicate ${d.kind} ${d.parent}${d.key === null ? "" : `/${d.key}`}: kept ${d.kept.id} (${d.kept.cost}), ` +
        `not imported ${d.dropped.map((r) => `${r.id} (${r.cost})`).join(", ")}`,
    );
  for (const s of result.report.skipped)
    lines.push(`  skipped ${s.kind} ${s.id} at ${s.where}: ${s.reason}`);
  for (const c of result.conflicts)
    lines.push(`  conflict ${c.kind} ${c.id} at ${c.where}: ${c.reason}`);
  for (const note of result.report.notes) lines.push(`Note: ${note}`);
  return `${lines.join("\n")}\n`;
}

export function formatDrift(drift: Drift, targetName: string): string {
  const last = drift.last_apply
    ? `last apply ${drift.last_apply.run_id} at ${drift.last_apply.finished_at ?? "?"} by ` +
      `${drift.last_apply.actor ?? "?"} (Ratecard revision ${drift.last_apply.ratecard_revision ?? "?"})`
    : "never applied";
  const precision = drift.double_precision ? "; costs compared at double precision" : "";
  const lines = [
    drift.differences.length === 0
      ? `No drift on ${targetName} (${last}${precision}).`
      : `Drift on ${targetName}: ${drift.differences.length} difference${drift.differences.length === 1 ? "" : "s"} (${last}${precision}).`,
  ];
  for (const d of drift.differences) {
    const value =
      d.field !== undefined
        ? ` ${d.field}: expected ${show(d.expected)}, CloudKitty has ${show(d.actual)}`
        : "";
    lines.push(`  ${d.kind.padEnd(16)} ${d.object_kind} ${d.path}${value} [against ${d.against}]`);
    if (d.note) lines.push(`        (${d.note})`);
  }
  for (const note of drift.notes ?? []) lines.push(`Note: ${note}`);
  return `${lines.join("\n")}\n`;
}

export function formatRuns(runs: Run[]): string {
  if (runs.length === 0) return "No runs.\n";
  return table(
    ["STARTED", "KIND", "STATUS", "ACTOR", "REVISION", "OPS", "RUN", "ERROR"],
    runs.map((r) => [
      r.started_at,
      r.kind,
      r.status,
      r.actor ?? "-",
      r.ratecard_revision ?? "-",
      String(r.operation_count),
      r.run_id,
      r.error ?? "",
    ]),
  );
}
