import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from "node:crypto";
import {
  convertRuleSet,
  isEmptyRuleSet,
  mergeRuleSets,
  type ImportReport,
  type MergeConflict,
} from "@ratecard/bridge";
import {
  CloudKittyClient,
  CloudKittyClientError,
  cloudKittyTarget,
  ZCloudKittyTargetInput,
  type CloudKittyTarget,
  type CloudKittyRuleSet,
  type CloudKittyTargetInput,
  type ProbeReport,
} from "@ratecard/cloudkitty";
import { appendAuditEvent, isUniqueViolation, type Prisma, type PrismaClient } from "@ratecard/db";
import type { PlanCounts } from "@ratecard/ruleset";
import { auditEvent, type AuditContext } from "./audit.js";
import { fail } from "./errors.js";
import { currentRuleSet } from "./ruleset.js";
import { applyRuleSetDocument } from "./ruleset-apply.js";
import { recordRun, runActor } from "./target-runs.js";

// CloudKitty targets (issue 14): the CloudKitty deployments Ratecard imports from or applies to.
// A target's secret (an application credential secret or a password) is write-only: encrypted at
// rest with AES-256-GCM under the server's target key, decrypted only to talk to CloudKitty, and
// never in an answer, an audit event, an error or a log line.

export const TARGET_MODES = ["import-source", "managed"] as const;
export type TargetMode = (typeof TARGET_MODES)[number];

// ------------------------------------------------------------------------------------- the key

// The key itself is configuration: the server reads RATECARD_SECRET_KEY or its data directory's
// key file at start (apps/server/src/target-key.ts) and hands a box to each request's context.

/** Encrypts and decrypts target secrets with one key; the target's id is the associated data. */
export class TargetSecretBox {
  readonly #key: Buffer;
  /**
   * The deadline of each request to a target's CloudKitty or Keystone. It travels with the box
   * because every operation that opens a target's client is handed the box (the server's
   * CLOUDKITTY_REQUEST_TIMEOUT_SECONDS).
   */
  readonly requestTimeoutMs: number;
  constructor(key: Buffer, options: { requestTimeoutMs?: number } = {}) {
    if (key.length !== 32) throw new Error("a target key is 32 bytes");
    this.#key = key;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  seal(targetId: string, secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(targetId, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString("base64url"));
    return `v1.${parts.join(".")}`;
  }

  open(targetId: string, sealed: string): string {
    const [version, iv, tag, ciphertext] = sealed.split(".");
    if (version !== "v1" || iv === undefined || tag === undefined || ciphertext === undefined) {
      throw fail.conflict(`The stored secret of target ${targetId} is unreadable: set it again`);
    }
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(targetId, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, "base64url")),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      // A key that changed (RATECARD_SECRET_KEY, or a data directory lost) or a tampered row.
      throw fail.conflict(
        `The stored secret of target ${targetId} cannot be decrypted with this server's key ` +
          "(RATECARD_SECRET_KEY or the data directory's target-secret-key changed): set it again",
      );
    }
  }
}

// ---------------------------------------------------------------------------------- the shapes

/** A target's connection as stored and answered: everything but the secret. */
export type TargetConnection =
  | { kind: "noauth"; url: string }
  | {
      kind: "keystone";
      auth_url: string;
      region: string | null;
      interface: "public" | "internal" | "admin";
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

export interface TTarget {
  target_id: string;
  name: string;
  mode: TargetMode;
  prune: boolean;
  /** Whether apply pushes pyscripts (code CloudKitty's processor runs). */
  push_scripts: boolean;
  /** Whether apply pushes module states (enabled, priority), which change what is billed. */
  push_modules: boolean;
  connection: TargetConnection;
  /** Whether a secret is stored (never the secret). */
  has_secret: boolean;
  revision: number;
  created_at: string;
  updated_at: string;
  last_probe: (ProbeReport & { at: string }) | null;
  last_import: (ImportSummary & { at: string }) | null;
  /** The apply holding the target's lease now (target-lock.ts); null when none does. */
  apply_in_progress: ApplyInProgress | null;
}

/** An apply under way, as its lease names it (never the lease's token). */
export interface ApplyInProgress {
  since: string;
  /** When the lease lapses unless its holder renews it (it does every quarter of a lease). */
  until: string;
  /** Who asked for the apply (the run history's actor); null for an unnamed caller. */
  actor: string | null;
  plan_id: string | null;
  /** The Ratecard instance carrying it out: host name and process id. */
  instance: string | null;
}

export interface ImportSummary {
  merge: boolean;
  revision: string;
  counts: ImportReport["counts"];
  duplicates: number;
  skipped: number;
  conflicts: number;
}

export type TargetRow = NonNullable<
  Awaited<ReturnType<PrismaClient["cloudKittyTarget"]["findUnique"]>>
>;

/**
 * The lease as an apply in progress. A lease past its end is not one: its holder died or lost it,
 * and the next apply takes it over.
 */
function applyInProgress(row: TargetRow, now: Date): ApplyInProgress | null {
  const { applyLockSince: since, applyLockUntil: until } = row;
  if (!row.applyLockToken || !since || !until || until < now) return null;
  return {
    since: since.toISOString(),
    until: until.toISOString(),
    actor: row.applyLockActor,
    plan_id: row.applyLockPlanId,
    instance: row.applyLockHolder,
  };
}

function render(row: TargetRow, now = new Date()): TTarget {
  return {
    target_id: row.id,
    name: row.name,
    mode: row.mode as TargetMode,
    prune: row.prune,
    push_scripts: row.pushScripts,
    push_modules: row.pushModules,
    connection: JSON.parse(row.connection) as TargetConnection,
    has_secret: row.secret !== null,
    revision: row.revision,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    last_probe:
      row.lastProbe && row.lastProbeAt
        ? { ...(JSON.parse(row.lastProbe) as ProbeReport), at: row.lastProbeAt.toISOString() }
        : null,
    last_import:
      row.lastImport && row.lastImportAt
        ? { ...(JSON.parse(row.lastImport) as ImportSummary), at: row.lastImportAt.toISOString() }
        : null,
    apply_in_progress: applyInProgress(row, now),
  };
}

/** What the audit trail records of a target: its answer, which has no secret. */
function audited(target: TTarget) {
  const { last_probe: _probe, last_import: _import, apply_in_progress: _apply, ...rest } = target;
  return rest;
}

/** The input of a registration; `connection` is validated here so that no message quotes it. */
export interface TargetCreate {
  name: string;
  mode: TargetMode;
  prune?: boolean;
  push_scripts?: boolean;
  push_modules?: boolean;
  connection: unknown;
}

export interface TargetPatch {
  name?: string;
  mode?: TargetMode;
  prune?: boolean;
  push_scripts?: boolean;
  push_modules?: boolean;
  /** The whole connection; a Keystone credential's secret may be left out to keep the stored one. */
  connection?: unknown;
}

/**
 * The connection's problems as "connection.credential.secret: required": zod's messages, which
 * never quote the rejected value (a secret sent in the wrong place stays out of the answer).
 */
function parseConnection(input: unknown) {
  const parsed = ZCloudKittyTargetInput.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => {
    const where = ["connection", ...issue.path.map(String)].join(".");
    return `${where}: ${issue.code === "invalid_type" && issue.input === undefined ? "required" : issue.message}`;
  });
  throw fail.badRequest(`Invalid target connection: ${issues.join("; ")}`);
}

type ParsedConnection = ReturnType<typeof parseConnection>;

function split(connection: ParsedConnection): { stored: TargetConnection; secret: string | null } {
  if (connection.kind === "noauth")
    return { stored: { kind: "noauth", url: connection.url }, secret: null };
  const credential = connection.credential;
  return {
    stored: {
      kind: "keystone",
      auth_url: connection.authUrl,
      region: connection.region ?? null,
      interface: connection.interface,
      credential:
        credential.kind === "application-credential"
          ? { kind: "application-credential", id: credential.id }
          : {
              kind: "password",
              username: credential.username,
              user_domain_name: credential.userDomainName,
              project_name: credential.projectName,
              project_domain_name: credential.projectDomainName,
            },
    },
    secret: credential.kind === "application-credential" ? credential.secret : credential.password,
  };
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw fail.badRequest("Invalid target: name: must not be empty");
  if (trimmed.length > 255) throw fail.badRequest("Invalid target: name: at most 255 characters");
  return trimmed;
}

const noSuchTarget = (id: string) => `No such target: ${id}`;
const nameTaken = (name: string) => `A target named ${JSON.stringify(name)} already exists`;

// ------------------------------------------------------------------------------------ CRUD

export async function listTargets(prisma: PrismaClient): Promise<TTarget[]> {
  const rows = await prisma.cloudKittyTarget.findMany({ orderBy: { name: "asc" } });
  return rows.map((row) => render(row));
}

export async function getTarget(prisma: PrismaClient, targetId: string): Promise<TTarget> {
  return render(await findRow(prisma, targetId));
}

export async function findRow(prisma: PrismaClient | Prisma.TransactionClient, targetId: string) {
  const row = await prisma.cloudKittyTarget.findUnique({ where: { id: targetId } });
  if (!row) throw fail.notFound(noSuchTarget(targetId));
  return row;
}

export async function createTarget(
  prisma: PrismaClient,
  box: TargetSecretBox,
  input: TargetCreate,
  audit: AuditContext,
): Promise<TTarget> {
  const name = checkName(input.name);
  const { stored, secret } = split(parseConnection(input.connection));
  const id = randomUUID();
  try {
    return await prisma.$transaction(async (tx) => {
      const target = render(
        await tx.cloudKittyTarget.create({
          data: {
            id,
            name,
            mode: input.mode,
            prune: input.prune ?? false,
            pushScripts: input.push_scripts ?? false,
            pushModules: input.push_modules ?? false,
            kind: stored.kind,
            connection: JSON.stringify(stored),
            secret: secret === null ? null : box.seal(id, secret),
          },
        }),
      );
      await appendAuditEvent(
        tx,
        auditEvent(audit, {
          operation: "create",
          resourceType: "target",
          resourceId: id,
          before: null,
          after: audited(target),
        }),
      );
      return target;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw fail.conflict(nameTaken(name));
    throw error;
  }
}

export async function updateTarget(
  prisma: PrismaClient,
  box: TargetSecretBox,
  targetId: string,
  patch: TargetPatch,
  audit: AuditContext,
): Promise<TTarget> {
  const name = patch.name === undefined ? undefined : checkName(patch.name);
  try {
    return await prisma.$transaction(async (tx) => {
      const row = await findRow(tx, targetId);
      const before = render(row);
      const data: Prisma.CloudKittyTargetUpdateInput = { revision: { increment: 1 } };
      if (name !== undefined) data.name = name;
      if (patch.mode !== undefined) data.mode = patch.mode;
      if (patch.prune !== undefined) data.prune = patch.prune;
      if (patch.push_scripts !== undefined) data.pushScripts = patch.push_scripts;
      if (patch.push_modules !== undefined) data.pushModules = patch.push_modules;
      if (patch.connection !== undefined) {
        const { stored, secret } = split(
          parseConnection(
            withStoredSecret(patch.connection, before.connection, () =>
              row.secret === null ? null : box.open(targetId, row.secret),
            ),
          ),
        );
        data.kind = stored.kind;
        data.connection = JSON.stringify(stored);
        data.secret = secret === null ? null : box.seal(targetId, secret);
      }
      const target = render(await tx.cloudKittyTarget.update({ where: { id: targetId }, data }));
      await appendAuditEvent(
        tx,
        auditEvent(audit, {
          operation: "update",
          resourceType: "target",
          resourceId: targetId,
          before: audited(before),
          after: audited(target),
        }),
      );
      return target;
    });
  } catch (error) {
    if (isUniqueViolation(error) && name !== undefined) throw fail.conflict(nameTaken(name));
    throw error;
  }
}

/**
 * A PATCH may leave a Keystone credential's secret out to keep the stored one, as long as the
 * credential is of the same kind (a password does not become an application credential secret).
 */
function withStoredSecret(
  input: unknown,
  current: TargetConnection,
  storedSecret: () => string | null,
): unknown {
  if (typeof input !== "object" || input === null) return input;
  const connection = input as Record<string, unknown>;
  const credential = connection.credential as Record<string, unknown> | undefined;
  if (connection.kind !== "keystone" || typeof credential !== "object" || credential === null)
    return input;
  if (current.kind !== "keystone" || current.credential.kind !== credential.kind) return input;
  const key = credential.kind === "password" ? "password" : "secret";
  if (credential[key] !== undefined) return input;
  const secret = storedSecret();
  return secret === null ? input : { ...connection, credential: { ...credential, [key]: secret } };
}

export async function deleteTarget(
  prisma: PrismaClient,
  targetId: string,
  audit: AuditContext,
): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const row = await findRow(tx, targetId);
    await tx.cloudKittyTarget.delete({ where: { id: targetId } });
    await appendAuditEvent(
      tx,
      auditEvent(audit, {
        operation: "delete",
        resourceType: "target",
        resourceId: targetId,
        before: audited(render(row)),
        after: null,
      }),
    );
  });
}

// ------------------------------------------------------------------------- talking to CloudKitty

/**
 * How long one request to CloudKitty or Keystone may take by default: CloudKitty 17 takes more
 * than 30 s to list one field of 10,000 mappings.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** A client of the target's CloudKitty (the secret decrypted here, kept only in the client). */
export function targetClient(row: TargetRow, box: TargetSecretBox): CloudKittyClient {
  return new CloudKittyClient(clientTarget(row, box), {
    timeoutMs: box.requestTimeoutMs,
    timeoutHint: "CLOUDKITTY_REQUEST_TIMEOUT_SECONDS raises it",
  });
}

function clientTarget(row: TargetRow, box: TargetSecretBox): CloudKittyTarget {
  const stored = JSON.parse(row.connection) as TargetConnection;
  let input: CloudKittyTargetInput;
  if (stored.kind === "noauth") input = { kind: "noauth", url: stored.url };
  else {
    const secret = row.secret === null ? "" : box.open(row.id, row.secret);
    input = {
      kind: "keystone",
      authUrl: stored.auth_url,
      ...(stored.region === null ? {} : { region: stored.region }),
      interface: stored.interface,
      credential:
        stored.credential.kind === "application-credential"
          ? { kind: "application-credential", id: stored.credential.id, secret }
          : {
              kind: "password",
              username: stored.credential.username,
              password: secret,
              userDomainName: stored.credential.user_domain_name,
              projectName: stored.credential.project_name,
              projectDomainName: stored.credential.project_domain_name,
            },
    };
  }
  return cloudKittyTarget(input);
}

export type TargetProbe = ProbeReport & { target_id: string; at: string };

/** Reachability, authentication, API generation and module states; kept as the last probe. */
export async function probeTarget(
  prisma: PrismaClient,
  box: TargetSecretBox,
  targetId: string,
): Promise<TargetProbe> {
  const row = await findRow(prisma, targetId);
  const client = targetClient(row, box);
  const report = await client.probe();
  const at = new Date();
  // The target may have been deleted meanwhile: then there is nothing to keep the report on.
  await prisma.cloudKittyTarget.updateMany({
    where: { id: targetId },
    data: { lastProbe: JSON.stringify(report), lastProbeAt: at },
  });
  return { target_id: targetId, ...report, at: at.toISOString() };
}

export interface TargetImport {
  /** The import's run in the target's history. */
  run_id: string;
  target_id: string;
  merge: boolean;
  /** Ratecard's rule-set revision before and after. */
  planned_revision: string;
  revision: string;
  /** The operations carried out in Ratecard. */
  applied: PlanCounts;
  report: ImportReport;
  /** With `merge`: what Ratecard already had and kept. */
  conflicts: MergeConflict[];
  /** How many requests reading CloudKitty took, and how long reading and writing took. */
  request_count: number;
  read_ms: number;
  write_ms: number;
}

/** JSON with every object's keys sorted: one text per value, whatever order it was built in. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : v,
  );
}

/**
 * The SHA-256 of the target's rule set as read (CloudKitty's objects, ids and texts exactly as
 * sent, in the read's stable order): any change on the target's side, a module's state included,
 * moves it. An apply compares it with its plan's.
 */
export function targetFingerprint(source: CloudKittyRuleSet): string {
  const { endpoint: _endpoint, requestCount: _count, ...rules } = source;
  return createHash("sha256").update(canonicalJson(rules)).digest("hex");
}

/**
 * The target's whole rule set, read through its v1 API and converted into a document with
 * CloudKitty's ids (and the report of what Ratecard cannot hold), with its fingerprint; a failed
 * read is a 409 naming the target.
 */
export async function readTargetRuleSet(
  prisma: PrismaClient,
  box: TargetSecretBox,
  row: TargetRow,
  options: { lifecycle?: boolean | "auto" } = {},
): Promise<ReturnType<typeof convertRuleSet> & { requestCount: number; fingerprint: string }> {
  const client = targetClient(row, box);
  let source;
  try {
    source = await client.readRuleSet();
  } catch (error) {
    if (error instanceof CloudKittyClientError) {
      throw fail.conflict(`Reading target ${row.name} failed: ${error.message}`);
    }
    throw error;
  }
  const modules = await prisma.ratingModule.findMany({ select: { id: true } });
  // A CloudKitty 23+ target's plan and drift compare validity dates; an import keeps them when
  // CloudKitty sent them ("auto": only a 23+ answers with `start`).
  const lifecycle =
    options.lifecycle === "auto" ? sentLifecycle(source) : (options.lifecycle ?? false);
  const converted = convertRuleSet(source, {
    modules: modules.map((m) => m.id),
    ...(lifecycle ? { lifecycle: true } : {}),
  });
  return {
    ...converted,
    requestCount: source.requestCount,
    fingerprint: targetFingerprint(source),
  };
}

/** Whether CloudKitty sent validity dates (a 23+ does on every mapping and script). */
function sentLifecycle(source: CloudKittyRuleSet): boolean {
  const rules = source.services.flatMap((service) => [
    ...service.mappings,
    ...service.fields.flatMap((field) => field.mappings),
  ]);
  return [...rules, ...source.scripts].some((rule) => rule.start !== undefined);
}

/**
 * Reads the target's whole rule set and stores it in Ratecard with CloudKitty's ids, in one
 * transaction (the rule-set apply). Into an empty Ratecard unless `merge`: then what Ratecard
 * lacks is added and what it has is kept, each difference reported as a conflict.
 */
export async function importTarget(
  prisma: PrismaClient,
  box: TargetSecretBox,
  targetId: string,
  options: { merge: boolean },
  audit: AuditContext,
): Promise<TargetImport> {
  const row = await findRow(prisma, targetId);
  const startedAt = new Date();
  const readStart = performance.now();
  const { document, report, requestCount, fingerprint } = await readTargetRuleSet(
    prisma,
    box,
    row,
    {
      lifecycle: "auto",
    },
  );
  const readMs = performance.now() - readStart;

  const writeStart = performance.now();
  const current = await currentRuleSet(prisma);
  let desired = document;
  let conflicts: MergeConflict[] = [];
  if (options.merge) {
    const merged = mergeRuleSets(current, document);
    desired = merged.document;
    conflicts = merged.conflicts;
  } else if (!isEmptyRuleSet(current)) {
    throw fail.conflict(
      "Ratecard already has rules: import into an empty Ratecard, or ask to merge " +
        "(merge adds what is missing and reports conflicts without changing existing rules)",
    );
  }
  // The revision read with the rules: the apply refuses (409) if anything changed since.
  const applied = await applyRuleSetDocument(
    prisma,
    { ...desired, revision: current.revision },
    audit,
  );
  const writeMs = performance.now() - writeStart;

  const summary: ImportSummary = {
    merge: options.merge,
    revision: applied.revision,
    counts: report.counts,
    duplicates: report.duplicates.length,
    skipped: report.skipped.length,
    conflicts: conflicts.length,
  };
  const runId = randomUUID();
  await prisma.$transaction(async (tx) => {
    await tx.cloudKittyTarget.updateMany({
      where: { id: targetId },
      data: { lastImport: JSON.stringify(summary), lastImportAt: new Date() },
    });
    const target = await tx.cloudKittyTarget.findUnique({ where: { id: targetId } });
    // Deleted meanwhile: its runs went with it.
    if (!target) return;
    await recordRun(tx, {
      id: runId,
      targetId,
      kind: "import",
      status: "ok",
      actor: runActor(audit),
      ratecardRevision: applied.revision,
      targetFingerprint: fingerprint,
      startedAt,
      summary: { ...summary, planned_revision: applied.planned_revision, applied: applied.counts },
    });
    await auditTargetRun(tx, audit, target, { run_id: runId, kind: "import", status: "ok" });
  });
  return {
    run_id: runId,
    target_id: targetId,
    merge: options.merge,
    planned_revision: applied.planned_revision,
    revision: applied.revision,
    applied: applied.counts,
    report,
    conflicts,
    request_count: requestCount,
    read_ms: Math.round(readMs),
    write_ms: Math.round(writeMs),
  };
}

/**
 * The audit event of a run that changed something (an import, an apply): an update of the target
 * whose `after` names the run, so that the trail links to the run history.
 */
export async function auditTargetRun(
  tx: Prisma.TransactionClient,
  audit: AuditContext,
  row: TargetRow,
  run: { run_id: string; kind: "import" | "apply"; status: string },
): Promise<void> {
  const target: object & { revision: number } = audited(render(row));
  await appendAuditEvent(
    tx,
    auditEvent(audit, {
      operation: "update",
      resourceType: "target",
      resourceId: row.id,
      before: target,
      after: Object.assign({ run }, target),
    }),
  );
}
