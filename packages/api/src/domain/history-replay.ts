// The rule set as it stood at a past moment, rebuilt from the audit trail (docs/pricing-at-a-moment.md).
// Plain data in, plain data out: no database, no framework. The caller reads the current rows and
// the events newer than the moment in one snapshot; this module undoes those events newest first.
//
// Unwinding from the present (rather than replaying forward from an empty database) keeps the
// answer exact for databases that held rules before the trail began: rows nobody changed since are
// simply what they are now. What cannot be known is anything before the trail's first event.

/** The resources a rule set is made of, as the audit trail names them. */
export const REPLAY_KINDS = [
  "service",
  "field",
  "group",
  "mapping",
  "threshold",
  "script",
  "module",
] as const;
export type ReplayKind = (typeof REPLAY_KINDS)[number];

/** The key that holds each kind's id in its REST object. */
export const ID_KEYS: Record<ReplayKind, string> = {
  service: "service_id",
  field: "field_id",
  group: "group_id",
  mapping: "mapping_id",
  threshold: "threshold_id",
  script: "script_id",
  module: "module_id",
};

export type ReplayObject = Readonly<Record<string, unknown>>;

/** One audit event, as much of it as the replay needs. */
export interface ReplayEvent {
  seq: number;
  operation: "create" | "update" | "delete";
  resourceType: string;
  resourceId: string;
  before: ReplayObject | null;
  after: ReplayObject | null;
  cascade: {
    deleted?: Partial<Record<string, ReplayObject[]>>;
    detached?: Partial<Record<string, ReplayObject[]>>;
  } | null;
}

/** An object and its place in load order (smaller first). */
export interface Placed {
  order: number;
  object: ReplayObject;
}

export type ReplayState = Record<ReplayKind, Map<string, Placed>>;

/** The cascade's plural keys (`deleted.fields`, ...) to the kinds they hold. */
const CASCADE_KINDS: Record<string, ReplayKind> = {
  services: "service",
  fields: "field",
  groups: "group",
  mappings: "mapping",
  thresholds: "threshold",
  scripts: "script",
};

/**
 * Load order. CloudKitty loads rules in creation order and the last rule loaded into a slot wins,
 * so a restored row must go back where it was created. Rows created since the trail began are
 * placed by their create event's number; older rows (no create event) come first, by their table
 * sequence when they still exist, else (deleted since) before those, in the order of their
 * deletion: that order among old, since-deleted rows is the one thing the trail cannot tell.
 */
export const PRE_TRAIL_ORDER = -(2 ** 40);
const DELETED_PRE_TRAIL_ORDER = -(2 ** 41);

export function emptyState(): ReplayState {
  return {
    service: new Map(),
    field: new Map(),
    group: new Map(),
    mapping: new Map(),
    threshold: new Map(),
    script: new Map(),
    module: new Map(),
  };
}

const isReplayKind = (type: string): type is ReplayKind =>
  (REPLAY_KINDS as readonly string[]).includes(type);

/** A copy of `state` that unwinding may change without touching the original's maps. */
export function copyState(state: ReplayState): ReplayState {
  const copy = emptyState();
  for (const kind of REPLAY_KINDS)
    for (const [id, placed] of state[kind]) copy[kind].set(id, placed);
  return copy;
}

/**
 * Undoes `newestFirst` (events newer than the moment, newest first) on `state` (the present), which
 * it changes in place. `createdAt(kind, id)` is the number of the resource's create event, when the
 * trail has it.
 */
export function unwindEvents(
  state: ReplayState,
  newestFirst: Iterable<ReplayEvent>,
  createdAt: (kind: ReplayKind, id: string) => number | undefined,
): ReplayState {
  const restore = (kind: ReplayKind, object: ReplayObject, deletedBy: number) => {
    const id = String(object[ID_KEYS[kind]]);
    state[kind].set(id, {
      order: createdAt(kind, id) ?? DELETED_PRE_TRAIL_ORDER + deletedBy,
      object,
    });
  };
  for (const event of newestFirst) {
    if (!isReplayKind(event.resourceType)) continue;
    const kind = event.resourceType;
    const map = state[kind];
    switch (event.operation) {
      case "create":
        map.delete(event.resourceId);
        break;
      case "update": {
        const current = map.get(event.resourceId);
        if (event.before === null) break;
        if (current) map.set(event.resourceId, { order: current.order, object: event.before });
        else restore(kind, event.before, event.seq);
        break;
      }
      case "delete": {
        if (event.before !== null) restore(kind, event.before, event.seq);
        for (const [plural, objects] of Object.entries(event.cascade?.deleted ?? {})) {
          const childKind = CASCADE_KINDS[plural];
          if (childKind) for (const object of objects ?? []) restore(childKind, object, event.seq);
        }
        // The rules a group's deletion moved to no group, as they were after it: give them back
        // their group and the revision they had before the move.
        for (const [plural, objects] of Object.entries(event.cascade?.detached ?? {})) {
          const childKind = CASCADE_KINDS[plural];
          if (!childKind) continue;
          for (const object of objects ?? []) {
            const id = String(object[ID_KEYS[childKind]]);
            const revision = object.revision;
            const before: ReplayObject = {
              ...object,
              group_id: event.resourceId,
              ...(typeof revision === "number" && { revision: revision - 1 }),
            };
            const current = state[childKind].get(id);
            if (current) state[childKind].set(id, { order: current.order, object: before });
            else restore(childKind, before, event.seq);
          }
        }
        break;
      }
    }
  }
  return state;
}

/** The objects of one kind in load order. */
export function inLoadOrder(map: ReadonlyMap<string, Placed>): ReplayObject[] {
  return [...map.values()].sort((a, b) => a.order - b.order).map((placed) => placed.object);
}

// ---- Validity periods (CloudKitty master's `start`, `end` and soft `deleted`) ----

export type ExclusionReason = "not_started" | "ended" | "deleted";

/** A moment key of a REST object (`start`, `end`, `deleted`) as epoch ms; null when unset. */
function momentOf(object: ReplayObject, key: string): number | null {
  const value = object[key];
  if (typeof value !== "string" || value === "") return null;
  const ms = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(ms) ? null : ms;
}

/**
 * Why a rule is not in force at `at` (epoch ms), or null when it is: in force means started
 * (`start` <= at), not ended (`end` unset or after at) and not deleted by then. Objects without
 * these keys (rules from before the lifecycle columns) are always in force.
 */
export function exclusionAt(object: ReplayObject, at: number): ExclusionReason | null {
  const deleted = object.deleted;
  if (deleted === true) return "deleted";
  const deletedAt = momentOf(object, "deleted");
  if (deletedAt !== null && deletedAt <= at) return "deleted";
  const start = momentOf(object, "start");
  if (start !== null && start > at) return "not_started";
  const end = momentOf(object, "end");
  if (end !== null && end <= at) return "ended";
  return null;
}

/** Every moment at which some rule starts, ends or is deleted, sorted, each once. */
export function lifecycleBoundaries(objects: Iterable<ReplayObject>): number[] {
  const moments = new Set<number>();
  for (const object of objects) {
    for (const key of ["start", "end", "deleted"]) {
      const moment = momentOf(object, key);
      if (moment !== null) moments.add(moment);
    }
  }
  return [...moments].sort((a, b) => a - b);
}

/**
 * Which stretch between boundaries `at` falls in: the same index for two moments means the same
 * rules are in force at both. Returns the index and the first boundary after `at` (the moment the
 * rules in force change next), or Infinity.
 */
export function intervalOf(
  boundaries: readonly number[],
  at: number,
): { index: number; until: number } {
  let low = 0;
  let high = boundaries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (boundaries[middle]! <= at) low = middle + 1;
    else high = middle;
  }
  return { index: low, until: boundaries[low] ?? Infinity };
}
