// The audit trail as the console shows it: what changed between an event's `before` and `after`,
// what a delete took with it, and the merge of several records' trails into one history.

export interface HistoryEvent {
  event_id: number;
  at: string;
  user_id: string | null;
  user_name: string | null;
  operation: "create" | "update" | "delete";
  resource_type: string;
  resource_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  cascade: {
    deleted?: Partial<Record<string, Record<string, unknown>[] | undefined>>;
    detached?: Partial<Record<string, Record<string, unknown>[] | undefined>>;
    password_changed?: true;
    sessions_revoked?: number;
  } | null;
}

/** The revision moves with every change: showing it would add a line to every diff. */
const HIDDEN_KEYS = new Set(["revision"]);

/** A value as an operator reads it: an absent or null reference is "none". */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined || value === "") return "none";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

export interface Change {
  key: string;
  from: string;
  to: string;
}

/** The keys whose value differs between `before` and `after`, in a stable order. */
export function diffObjects(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): Change[] {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const changes: Change[] = [];
  for (const key of [...keys].sort()) {
    if (HIDDEN_KEYS.has(key)) continue;
    const from = formatValue(before?.[key]);
    const to = formatValue(after?.[key]);
    if (from !== to) changes.push({ key, from, to });
  }
  return changes;
}

/** A created or deleted object's keys and values (its revision left out). */
export function describeObject(object: Record<string, unknown> | null): [string, string][] {
  return Object.entries(object ?? {})
    .filter(([key]) => !HIDDEN_KEYS.has(key))
    .map(([key, value]) => [key, formatValue(value)]);
}

const SINGULAR: Record<string, string> = {
  fields: "field",
  mappings: "mapping",
  thresholds: "threshold",
  tokens: "token",
};

function counted(lists: Partial<Record<string, unknown[] | undefined>>): string[] {
  return Object.entries(lists)
    .filter((entry): entry is [string, unknown[]] => Array.isArray(entry[1]) && entry[1].length > 0)
    .map(([name, list]) => `${list.length} ${list.length === 1 ? (SINGULAR[name] ?? name) : name}`);
}

/** One sentence for what a delete took with it, or null when it took nothing. */
export function summarizeCascade(cascade: HistoryEvent["cascade"]): string | null {
  if (!cascade) return null;
  const parts: string[] = [];
  const deleted = counted(cascade.deleted ?? {});
  if (deleted.length) parts.push(`also deleted ${deleted.join(", ")}`);
  const detached = counted(cascade.detached ?? {});
  if (detached.length) parts.push(`moved ${detached.join(", ")} to no group`);
  if (cascade.password_changed) parts.push("set a new password");
  if (cascade.sessions_revoked) parts.push(`signed out ${cascade.sessions_revoked} session(s)`);
  return parts.length ? parts.join("; ") : null;
}

/** Who made a change: their name, else their id, else nobody recorded (a change made without a request). */
export function describeUser(event: Pick<HistoryEvent, "user_id" | "user_name">): string {
  return event.user_name ?? event.user_id ?? "unknown";
}

/** When, in the operator's time zone (the UTC moment goes in a tooltip). */
export function formatWhen(at: string, timeZone?: string): string {
  return new Intl.DateTimeFormat("en-GB", {
    dateStyle: "medium",
    timeStyle: "medium",
    timeZone,
  }).format(new Date(at));
}

/** Reading the trail needs ratecard:read_audit (administrators by default): others get FORBIDDEN. */
export function isForbidden(error: unknown): boolean {
  const data = (error as { data?: { code?: unknown } } | null)?.data;
  return data?.code === "FORBIDDEN";
}
