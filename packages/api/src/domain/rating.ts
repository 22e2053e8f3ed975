import type { PrismaClient } from "@ratecard/db";
import {
  compileRuleSet,
  findRuleSetWarnings,
  type HashmapRuleSet,
  type RatingIndex,
  type RuleSetWarning,
} from "@ratecard/rating";
import {
  renderField,
  renderGroup,
  renderMapping,
  renderService,
  renderThreshold,
} from "./render.js";

export interface CompiledRuleSet {
  rules: HashmapRuleSet;
  index: RatingIndex;
  /** Read with the rules, so that a quote needs no query of its own. */
  hashmapEnabled: boolean;
  /** Lint-style findings, computed on first use (they cost a few hundred ms on 10,000 rules). */
  warnings(): RuleSetWarning[];
}

function compile({ rules, hashmapEnabled }: LoadedRuleSet): CompiledRuleSet {
  let warnings: RuleSetWarning[] | undefined;
  return {
    rules,
    index: compileRuleSet(rules),
    hashmapEnabled,
    warnings: () => (warnings ??= findRuleSetWarnings(rules)),
  };
}

interface LoadedRuleSet {
  rules: HashmapRuleSet;
  hashmapEnabled: boolean;
}

/**
 * Reads the whole hashmap configuration and whether the module is enabled in one consistent
 * snapshot, rules in creation order (the order CloudKitty loads rules in, which decides which rule
 * wins a slot).
 */
export async function loadRuleSet(prisma: PrismaClient): Promise<LoadedRuleSet> {
  const byCreation = { orderBy: { seq: "asc" as const } };
  const [services, fields, groups, mappings, thresholds, hashmap] = await prisma.$transaction([
    prisma.service.findMany(byCreation),
    prisma.field.findMany(byCreation),
    prisma.group.findMany(byCreation),
    prisma.mapping.findMany(byCreation),
    prisma.threshold.findMany(byCreation),
    prisma.ratingModule.findUnique({ where: { id: "hashmap" } }),
  ]);
  return {
    rules: {
      services: services.map(renderService),
      fields: fields.map(renderField),
      groups: groups.map(renderGroup),
      mappings: mappings.map(renderMapping),
      thresholds: thresholds.map(renderThreshold),
    },
    hashmapEnabled: hashmap?.enabled ?? false,
  };
}

/**
 * The rule set, loaded and indexed once and reused until a write invalidates it, so that a quote
 * costs microseconds per point rather than a database round trip per rule. One per process: a
 * write made by another process (another instance on a shared database) is not seen until this
 * process writes or restarts.
 */
export class RuleSetCache {
  #current: Promise<CompiledRuleSet> | undefined;
  #version: number | undefined;
  #loads = 0;
  #loadSeconds = 0;

  /**
   * @param version changes whenever the database does (also through other processes): the
   * compiled rule set is rebuilt when it moves. Without it, only invalidate() drops it.
   */
  constructor(private readonly version?: () => number) {}

  /** Rule sets loaded and compiled since start, and the time they took (for monitoring). */
  stats(): { loads: number; loadSeconds: number } {
    return { loads: this.#loads, loadSeconds: this.#loadSeconds };
  }

  get(prisma: PrismaClient): Promise<CompiledRuleSet> {
    const version = this.version?.();
    if (version !== this.#version) {
      this.#current = undefined;
      this.#version = version;
    }
    if (!this.#current) {
      const started = performance.now();
      const loading = loadRuleSet(prisma)
        .then(compile)
        .then((compiled) => {
          this.#loads++;
          this.#loadSeconds += (performance.now() - started) / 1000;
          return compiled;
        });
      this.#current = loading;
      loading.catch(() => {
        if (this.#current === loading) this.#current = undefined;
      });
    }
    return this.#current;
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
