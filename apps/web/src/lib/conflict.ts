// A write refused because the resource moved on since it was read (tRPC PRECONDITION_FAILED, 412):
// who changed it and when, from the server's message or, better, from the audit trail, and what
// differs between the server's current values and the operator's.

export interface ConflictInfo {
  /** The server's message, as a sentence for operators. */
  message: string;
  /** The resource's revision now, when the message names it. */
  currentRevision: number | null;
  /** Who changed it last, when known. */
  changedBy: string | null;
  /** When (ISO 8601), when known. */
  changedAt: string | null;
}

interface ErrorLike {
  message?: unknown;
  data?: { code?: unknown; httpStatus?: unknown } | null;
}

export function isConflict(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const data = (error as ErrorLike).data;
  return data?.code === "PRECONDITION_FAILED" || data?.httpStatus === 412;
}

const REVISION = /it is at revision (\d+)/;
const CHANGED = /\(last changed by (.+?) at (\d{4}-\d\d-\d\dT[0-9:.]+Z)\)/;
const CHANGED_AT = /\(last changed at (\d{4}-\d\d-\d\dT[0-9:.]+Z)\)/;

/** Reads the revision, the author and the moment out of the server's 412 message. */
export function parseConflict(message: string): ConflictInfo {
  const revision = REVISION.exec(message);
  const changed = CHANGED.exec(message);
  const changedAt = changed ? null : CHANGED_AT.exec(message);
  return {
    message,
    currentRevision: revision ? Number(revision[1]) : null,
    changedBy: changed ? changed[1]! : null,
    changedAt: changed ? changed[2]! : (changedAt?.[1] ?? null),
  };
}

export function conflictOf(error: unknown): ConflictInfo {
  const message =
    typeof error === "object" && error !== null && typeof (error as ErrorLike).message === "string"
      ? ((error as ErrorLike).message as string)
      : String(error);
  return parseConflict(message);
}

/** The latest audit event's author and moment win over the message's (the message may be older). */
export function withAuditEvent(
  conflict: ConflictInfo,
  event: { at: string; user_name: string | null; user_id: string | null } | undefined,
): ConflictInfo {
  if (!event) return conflict;
  return {
    ...conflict,
    changedBy: event.user_name ?? event.user_id ?? conflict.changedBy,
    changedAt: event.at,
  };
}

/** "Changed by alice at 25/11/2026, 19:02:11", in the operator's time zone. */
export function describeChange(conflict: ConflictInfo, locale?: string): string {
  const when = conflict.changedAt ? new Date(conflict.changedAt).toLocaleString(locale) : null;
  if (conflict.changedBy && when) return `Changed by ${conflict.changedBy} at ${when}.`;
  if (conflict.changedBy) return `Changed by ${conflict.changedBy}.`;
  if (when) return `Changed at ${when}.`;
  return "Changed by someone else since you opened it.";
}

export interface FieldDifference {
  label: string;
  server: string;
  mine: string;
}

/**
 * The fields whose current server value differs from the operator's, in the order of `labels`
 * (only labelled fields are compared; an empty value reads "(none)").
 */
export function diffValues<Values extends object>(
  server: Values,
  mine: Values,
  labels: Partial<Record<keyof Values, string>>,
  show: (key: keyof Values, value: unknown) => string = (_key, value) =>
    value === null || value === undefined || value === ""
      ? "(none)"
      : typeof value === "string" || typeof value === "number" || typeof value === "boolean"
        ? String(value)
        : JSON.stringify(value),
): FieldDifference[] {
  const differences: FieldDifference[] = [];
  for (const key of Object.keys(labels) as (keyof Values)[]) {
    const label = labels[key];
    if (!label) continue;
    const serverText = show(key, server[key]);
    const mineText = show(key, mine[key]);
    if (serverText !== mineText) differences.push({ label, server: serverText, mine: mineText });
  }
  return differences;
}
