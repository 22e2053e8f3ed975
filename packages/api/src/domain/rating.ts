import { clientProvider, type Prisma, type PrismaClient } from "@ratecard/db";
import {
  compileRuleSet,
  findRuleSetWarnings,
  type HashmapField,
  type HashmapGroup,
  type HashmapMapping,
  type HashmapRuleSet,
  type HashmapService,
  type HashmapThreshold,
  type RatingIndex,
  type RuleSetWarning,
} from "@ratecard/rating";
import { fail } from "./errors.js";
import {
  copyState,
  emptyState,
  exclusionAt,
  inLoadOrder,
  intervalOf,
  lifecycleBoundaries,
  PRE_TRAIL_ORDER,
  REPLAY_KINDS,
  unwindEvents,
  type ExclusionReason,
  type ReplayEvent,
  type ReplayKind,
  type ReplayObject,
  type ReplayState,
} from "./history-replay.js";
import {
  renderField,
  renderGroup,
  renderMapping,
  renderRatingModule,
  renderScript,
  renderService,
  renderThreshold,
} from "./render.js";

/** A mapping or threshold left out because of its validity period at the moment priced. */
export interface ExcludedRule {
  kind: "mapping" | "threshold";
  rule: HashmapMapping | HashmapThreshold;
  reason: ExclusionReason;
}

export interface CompiledRuleSet {
  /** The rules in force at the moment this set was compiled for, in load order. */
  rules: HashmapRuleSet;
  index: RatingIndex;
  /** Read with the rules, so that a quote needs no query of its own. */
  hashmapEnabled: boolean;
  /** Rules that exist (at that moment) but are not in force by their dates. */
  excluded: readonly ExcludedRule[];
  /** Epoch ms of the next moment a rule starts, ends or is deleted (Infinity: none scheduled). */
  validUntil: number;
  /** Lint-style findings, computed on first use (they cost a few hundred ms on 10,000 rules). */
  warnings(): RuleSetWarning[];
}

/**
 * Every rule as it stood at one point of the trail, whatever its dates, compiled lazily for each
 * stretch of time between two lifecycle boundaries: the rules in force cannot change inside one.
 */
export class TimedRuleSet {
  readonly boundaries: readonly number[];
  readonly hashmapEnabled: boolean;
  readonly #all: HashmapRuleSet;
  /** A few stretches at most are asked for (now, and the odd past or future moment). */
  readonly #compiled = new Map<number, CompiledRuleSet>();

  constructor(
    state: ReplayState,
    /** The number of the newest audit event this state includes (0: none). */
    readonly trailSeq: number,
  ) {
    this.#all = {
      services: inLoadOrder(state.service) as unknown as HashmapService[],
      fields: inLoadOrder(state.field) as unknown as HashmapField[],
      groups: inLoadOrder(state.group) as unknown as HashmapGroup[],
      mappings: inLoadOrder(state.mapping) as unknown as HashmapMapping[],
      thresholds: inLoadOrder(state.threshold) as unknown as HashmapThreshold[],
    };
    this.hashmapEnabled = state.module.get("hashmap")?.object.enabled === true;
    this.boundaries = lifecycleBoundaries(
      [...state.mapping.values(), ...state.threshold.values()].map((placed) => placed.object),
    );
  }

  /** The rule set compiled for the moment `at` (epoch ms). */
  at(at: number): CompiledRuleSet {
    const { index, until } = intervalOf(this.boundaries, at);
    let compiled = this.#compiled.get(index);
    if (!compiled) {
      compiled = this.#compile(at, until);
      if (this.#compiled.size >= 4) this.#compiled.delete(this.#compiled.keys().next().value!);
      this.#compiled.set(index, compiled);
    }
    return compiled;
  }

  #compile(at: number, validUntil: number): CompiledRuleSet {
    const excluded: ExcludedRule[] = [];
    const inForce = <T extends HashmapMapping | HashmapThreshold>(
      kind: ExcludedRule["kind"],
      rules: readonly T[],
    ): T[] =>
      rules.filter((rule) => {
        const reason = exclusionAt(rule as unknown as ReplayObject, at);
        if (reason !== null) excluded.push({ kind, rule, reason });
        return reason === null;
      });
    const rules: HashmapRuleSet = {
      ...this.#all,
      mappings: inForce("mapping", this.#all.mappings),
      thresholds: inForce("threshold", this.#all.thresholds),
    };
    let warnings: RuleSetWarning[] | undefined;
    return {
      rules,
      index: compileRuleSet(rules),
      hashmapEnabled: this.hashmapEnabled,
      excluded,
      validUntil,
      warnings: () => (warnings ??= findRuleSetWarnings(rules)),
    };
  }
}

/** The client is typed against SQLite's, whose isolation type lists Serializable only. */
const REPEATABLE_READ = "RepeatableRead" as "Serializable";

/**
 * Runs `read` in one consistent snapshot: SQLite's transactions are serializable; PostgreSQL's READ
 * COMMITTED default could show a change's rows without its audit event, hence REPEATABLE READ.
 */
function inSnapshot<T>(prisma: PrismaClient, read: (tx: Prisma.TransactionClient) => Promise<T>) {
  return prisma.$transaction(
    read,
    clientProvider(prisma) === "postgresql" ? { isolationLevel: REPEATABLE_READ } : {},
  );
}

type Order = (kind: ReplayKind, row: { seq: number; id: string }) => number;

/**
 * Reads the whole rating configuration as the REST answers show it, each row with its place in
 * load order, and the newest audit event's number, in `tx`'s snapshot. Rules in creation order are
 * the order CloudKitty loads rules in, which decides which rule wins a slot.
 */
async function readState(
  tx: Prisma.TransactionClient,
  order: Order,
): Promise<{ state: ReplayState; trailSeq: number }> {
  const byCreation = { orderBy: { seq: "asc" as const } };
  const services = await tx.service.findMany(byCreation);
  const fields = await tx.field.findMany(byCreation);
  const groups = await tx.group.findMany(byCreation);
  const mappings = await tx.mapping.findMany(byCreation);
  const thresholds = await tx.threshold.findMany(byCreation);
  const scripts = await tx.script.findMany(byCreation);
  const modules = await tx.ratingModule.findMany();
  const newest = await tx.auditEvent.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } });
  const state = emptyState();
  const place = <R extends { seq: number; id: string }>(
    kind: ReplayKind,
    rows: readonly R[],
    render: (row: R) => ReplayObject,
  ) => {
    for (const row of rows)
      state[kind].set(row.id, { order: order(kind, row), object: render(row) });
  };
  place("service", services, renderService);
  place("field", fields, renderField);
  place("group", groups, renderGroup);
  place("mapping", mappings, renderMapping);
  place("threshold", thresholds, renderThreshold);
  place("script", scripts, (row) => renderScript(row));
  modules.forEach((row, position) =>
    state.module.set(row.id, { order: position, object: renderRatingModule(row) }),
  );
  return { state, trailSeq: newest?.seq ?? 0 };
}

/** The rule set now, every rule whatever its dates. */
export async function loadRuleSet(prisma: PrismaClient): Promise<TimedRuleSet> {
  const { state, trailSeq } = await inSnapshot(prisma, (tx) =>
    readState(tx, (_kind, row) => row.seq),
  );
  return new TimedRuleSet(state, trailSeq);
}

const parseJson = (text: string | null): never =>
  (text === null ? null : JSON.parse(text)) as never;

/**
 * The rule set as it stood just after audit event `seq`: the present, with every later event
 * undone. Rows are placed by their create event (see history-replay.ts on rows older than the
 * trail), so restored rows go back to their place in load order.
 */
export async function reconstructRuleSet(prisma: PrismaClient, seq: number): Promise<TimedRuleSet> {
  return inSnapshot(prisma, async (tx) => {
    const creates = await tx.auditEvent.findMany({
      where: { operation: "create", resourceType: { in: [...REPLAY_KINDS] }, seq: { lte: seq } },
      select: { seq: true, resourceType: true, resourceId: true },
    });
    const createdAt = new Map(
      creates.map((event) => [`${event.resourceType}:${event.resourceId}`, event.seq]),
    );
    const created = (kind: ReplayKind, id: string) => createdAt.get(`${kind}:${id}`);
    const { state } = await readState(
      tx,
      (kind, row) => created(kind, row.id) ?? PRE_TRAIL_ORDER + row.seq,
    );
    const later = await tx.auditEvent.findMany({
      where: { seq: { gt: seq }, resourceType: { in: [...REPLAY_KINDS] } },
      orderBy: { seq: "desc" },
      select: {
        seq: true,
        operation: true,
        resourceType: true,
        resourceId: true,
        before: true,
        after: true,
        cascade: true,
      },
    });
    const events: ReplayEvent[] = later.map((row) => ({
      seq: row.seq,
      operation: row.operation as ReplayEvent["operation"],
      resourceType: row.resourceType,
      resourceId: row.resourceId,
      before: parseJson(row.before),
      after: parseJson(row.after),
      cascade: parseJson(row.cascade),
    }));
    // Modules have a fixed place; the others are placed by creation.
    const moduleOrder = new Map([...state.module].map(([id, placed]) => [id, placed.order]));
    unwindEvents(state, events, (kind, id) =>
      kind === "module" ? (moduleOrder.get(id) ?? 0) : created(kind, id),
    );
    return new TimedRuleSet(copyState(state), seq);
  });
}

/** What a price at a moment was computed with. */
export interface RuleSetAtMoment {
  compiled: CompiledRuleSet;
  /** The moment priced. */
  at: Date;
  /** True when the rules were rebuilt from the audit trail (a moment before the newest change). */
  reconstructed: boolean;
  /** The newest audit event the rules include (null: the present rules, whatever the trail says). */
  eventId: number | null;
}

/**
 * The rule set, loaded and indexed once and reused until a write invalidates it or the next moment
 * a rule starts or ends, so that a quote costs microseconds per point rather than a database round
 * trip per rule. One per process: a write made by another process (another instance on a shared
 * database) is not seen until this process writes or restarts, unless `version` says so.
 */
export class RuleSetCache {
  #current: Promise<TimedRuleSet> | undefined;
  /** The last rule set loaded, once loaded (for clockEpoch, which cannot wait). */
  #loaded: TimedRuleSet | undefined;
  #version: number | undefined;
  #loads = 0;
  #loadSeconds = 0;
  /** Past rule sets by the audit event they stop at: the trail is immutable, so they never expire. */
  readonly #past = new Map<number, Promise<TimedRuleSet>>();

  /**
   * @param version changes whenever the database does (also through other processes): the
   * compiled rule set is rebuilt when it moves. Without it, only invalidate() drops it.
   */
  constructor(
    private readonly version?: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Rule sets loaded and compiled since start, and the time they took (for monitoring). */
  stats(): { loads: number; loadSeconds: number } {
    return { loads: this.#loads, loadSeconds: this.#loadSeconds };
  }

  #timed(loading: Promise<TimedRuleSet>, started: number): Promise<TimedRuleSet> {
    return loading.then((loaded) => {
      this.#loads++;
      this.#loadSeconds += (performance.now() - started) / 1000;
      return loaded;
    });
  }

  /** Every rule as it is now, whatever its dates. */
  present(prisma: PrismaClient): Promise<TimedRuleSet> {
    const version = this.version?.();
    if (version !== this.#version) {
      this.#current = undefined;
      this.#version = version;
    }
    if (!this.#current) {
      const loading = this.#timed(loadRuleSet(prisma), performance.now());
      this.#current = loading;
      loading.then(
        (loaded) => {
          if (this.#current === loading) this.#loaded = loaded;
        },
        () => {
          if (this.#current === loading) this.#current = undefined;
        },
      );
    }
    return this.#current;
  }

  /**
   * Which stretch between two lifecycle boundaries now is in, for the last rule set loaded: it
   * moves when a rule starts, ends or is deleted, with no write. A cache of answers computed from
   * today's rules (the read snapshot) must add it to the data version it keys answers by.
   */
  clockEpoch(): number {
    return this.#loaded ? intervalOf(this.#loaded.boundaries, this.now()).index : 0;
  }

  /**
   * The rules in force now. Compiled once per stretch between two lifecycle boundaries: a rule
   * whose start passes is used by the next call without any write.
   */
  async get(prisma: PrismaClient): Promise<CompiledRuleSet> {
    return (await this.present(prisma)).at(this.now());
  }

  /**
   * The rules in force at `at`: now's for a moment not in the past; for a past moment, the rules as
   * they stood then, rebuilt from the audit trail. Moments before the trail's first event cannot
   * be rebuilt (a database may hold rules older than its trail) and are refused.
   */
  async at(prisma: PrismaClient, at: Date | undefined): Promise<RuleSetAtMoment> {
    const now = this.now();
    const moment = at?.getTime() ?? now;
    const present = await this.present(prisma);
    if (moment >= now) {
      return {
        compiled: present.at(moment),
        at: new Date(moment),
        reconstructed: false,
        eventId: null,
      };
    }
    // The last event at or before the moment, found through the index on `at` (a max over every
    // earlier event would read them all): events are appended in time order.
    const [upTo, first] = await Promise.all([
      prisma.auditEvent.findFirst({
        where: { at: { lte: new Date(moment) } },
        orderBy: [{ at: "desc" }, { seq: "desc" }],
        select: { seq: true },
      }),
      prisma.auditEvent.findFirst({ orderBy: { seq: "asc" }, select: { at: true } }),
    ]);
    const seq = upTo?.seq ?? null;
    if (seq === null || first === null) {
      throw fail.badRequest(
        first === null
          ? `Cannot price at ${new Date(moment).toISOString()}: the audit trail has no change yet, so ` +
              "the rules of a past moment cannot be rebuilt. Price without a moment, or at a later one."
          : `Cannot price at ${new Date(moment).toISOString()}: the audit trail begins at ` +
              `${first.at.toISOString()}, and the rules before its first change cannot be rebuilt.`,
      );
    }
    if (seq === present.trailSeq) {
      return {
        compiled: present.at(moment),
        at: new Date(moment),
        reconstructed: false,
        eventId: seq,
      };
    }
    let past = this.#past.get(seq);
    if (!past) {
      past = this.#timed(reconstructRuleSet(prisma, seq), performance.now());
      const loading = past;
      loading.catch(() => {
        if (this.#past.get(seq) === loading) this.#past.delete(seq);
      });
      if (this.#past.size >= 8) this.#past.delete(this.#past.keys().next().value!);
      this.#past.set(seq, past);
    }
    return {
      compiled: (await past).at(moment),
      at: new Date(moment),
      reconstructed: true,
      eventId: seq,
    };
  }

  /**
   * Drops the rule set after a call that may have written. A versioned cache needs no telling: it
   * sees every commit itself, and the quote (a POST that writes nothing) must not cost a recompile.
   */
  invalidate(): void {
    if (!this.version) this.#current = undefined;
  }
}

/** The metadata CloudKitty rates a quoted resource with: desc.metadata + desc.groupby, or desc itself. */
export function quoteMetadata(desc: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!desc) return {};
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  if (!("metadata" in desc) && !("groupby" in desc)) return desc;
  return {
    ...(isObject(desc.metadata) ? desc.metadata : {}),
    ...(isObject(desc.groupby) ? desc.groupby : {}),
  };
}
