/**
 * Pricing throughput and memory on a large rule set. Not a test: run with
 *   pnpm --filter @ratecard/rating bench
 * 10,000 rules over 50 services (4 fields each), 10 groups and 50 tenants, then
 * 100,000 usage points priced with pricePoint, and CloudKitty's quote of 1,000
 * resources (no tenant) priced with priceQuote, as POST /v1/rating/quote does.
 */
import { performance } from "node:perf_hooks";
import type {
  HashmapField,
  HashmapMapping,
  HashmapRuleSet,
  HashmapThreshold,
  RuleType,
  UsagePoint,
} from "../src/index.js";
import type { Decimal } from "decimal.js";
import { priceExactly } from "../src/fast-price.js";
import {
  compileRuleSet,
  explainPoint,
  findRuleSetWarnings,
  pricePoint,
  priceQuote,
} from "../src/index.js";
import { pricePointInDecimal, priceQuoteInDecimal } from "../src/price.js";

const SERVICES = 50;
const GROUPS = 10;
const TENANTS = 50;
const VALUES_PER_FIELD = 30;
const POINTS = 100_000;
const EXPLAINED_POINTS = 10_000;
const QUOTE_RESOURCES = 1_000;
const QUOTE_RUNS = 200;

/** A seeded xorshift generator, so that every run prices the same workload. */
function integers(seed: number): (bound: number) => number {
  let state = seed >>> 0 || 1;
  return (bound) => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state % bound;
  };
}

const next = integers(20261121);

function decimalText(maxUnits: number, decimals: number): string {
  const units = String(next(maxUnits));
  const fraction = String(next(10 ** decimals)).padStart(decimals, "0");
  return `${units}.${fraction}`;
}

function pick<T>(items: readonly T[]): T {
  const item = items[next(items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

function buildRuleSet(): HashmapRuleSet {
  const services = Array.from({ length: SERVICES }, (_, s) => ({
    service_id: `s${s}`,
    name: `metric.${s}`,
  }));
  const groups = Array.from({ length: GROUPS }, (_, g) => ({
    group_id: `g${g}`,
    name: `group-${g}`,
  }));
  const tenants = Array.from({ length: TENANTS }, (_, t) => `project-${t}`);
  const fields: HashmapField[] = services.flatMap((service) =>
    ["flavor", "region", "vcpus", "ram"].map((name) => ({
      field_id: `${service.service_id}-${name}`,
      name,
      service_id: service.service_id,
    })),
  );
  const mappings: HashmapMapping[] = [];
  const thresholds: HashmapThreshold[] = [];
  const groupId = (): string | null => (next(4) === 0 ? null : pick(groups).group_id);
  const type = (): RuleType => (next(3) === 0 ? "rate" : "flat");
  const mapping = (rule: Partial<HashmapMapping>, tenant: string | null): void => {
    const ruleType = rule.type ?? type();
    mappings.push({
      mapping_id: `m${mappings.length}`,
      value: null,
      service_id: null,
      field_id: null,
      group_id: groupId(),
      ...rule,
      type: ruleType,
      cost: ruleType === "rate" ? decimalText(2, 4) : decimalText(100, 6),
      tenant_id: tenant,
    });
  };
  const threshold = (rule: Partial<HashmapThreshold>, tenant: string | null): void => {
    const ruleType = type();
    thresholds.push({
      threshold_id: `t${thresholds.length}`,
      level: String(next(200)),
      service_id: null,
      field_id: null,
      group_id: groupId(),
      ...rule,
      type: ruleType,
      cost: ruleType === "rate" ? decimalText(2, 4) : decimalText(10, 4),
      tenant_id: tenant,
    });
  };
  for (const service of services) {
    for (const group of groups)
      mapping({ service_id: service.service_id, group_id: group.group_id, type: "flat" }, null);
    for (let i = 0; i < GROUPS; i += 1) mapping({ service_id: service.service_id }, pick(tenants));
    for (let i = 0; i < 10; i += 1) threshold({ service_id: service.service_id }, null);
    for (let i = 0; i < 10; i += 1) threshold({ service_id: service.service_id }, pick(tenants));
  }
  for (const field of fields) {
    for (let v = 0; v < VALUES_PER_FIELD; v += 1)
      mapping({ field_id: field.field_id, value: fieldValue(field.name, v) }, null);
    for (let i = 0; i < 5; i += 1) {
      mapping(
        { field_id: field.field_id, value: fieldValue(field.name, next(VALUES_PER_FIELD)) },
        pick(tenants),
      );
    }
    if (field.name === "vcpus" || field.name === "ram") {
      for (let i = 0; i < 10; i += 1)
        threshold({ field_id: field.field_id }, next(2) === 0 ? null : pick(tenants));
    }
  }
  return { services, fields, groups, mappings, thresholds };
}

function fieldValue(fieldName: string, position: number): string {
  return fieldName === "vcpus" || fieldName === "ram"
    ? String(position * 8)
    : `${fieldName}-${position}`;
}

function buildPoints(count: number): UsagePoint[] {
  return Array.from({ length: count }, () => ({
    service: `metric.${next(SERVICES + 1)}`,
    volume: decimalText(1000, 3),
    tenant: next(5) === 0 ? null : `project-${next(TENANTS)}`,
    metadata: {
      flavor: fieldValue("flavor", next(VALUES_PER_FIELD + 5)),
      region: fieldValue("region", next(VALUES_PER_FIELD + 5)),
      vcpus: fieldValue("vcpus", next(VALUES_PER_FIELD)),
      ram: next(2) === 0 ? fieldValue("ram", next(VALUES_PER_FIELD)) : next(250),
    },
  }));
}

/** A quote's resources: CloudKitty's quote rates with no tenant. */
function buildQuote(): UsagePoint[] {
  return buildPoints(QUOTE_RESOURCES).map((point) => ({ ...point, tenant: null }));
}

function percentile(sortedTimes: readonly number[], fraction: number): number {
  return (
    sortedTimes[Math.min(sortedTimes.length - 1, Math.floor(sortedTimes.length * fraction))] ?? 0
  );
}

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

interface Timing {
  wallMs: number;
  cpuMs: number;
}

/** Wall and CPU time of a run: on a busy machine the CPU time is the steadier figure. */
function timed(run: () => void): Timing {
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  run();
  const wallMs = performance.now() - wallStart;
  const cpu = process.cpuUsage(cpuStart);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

function perPoint(timing: Timing, count: number): string {
  const wall = (timing.wallMs * 1000) / count;
  const cpu = (timing.cpuMs * 1000) / count;
  return `${wall.toFixed(2)} us/point (CPU ${cpu.toFixed(2)}), ${Math.round(count / (timing.wallMs / 1000))} points/s`;
}

/** Prices the same quote QUOTE_RUNS times; the median and p95 of the wall time of one quote. */
function timeQuotes(price: () => Decimal): {
  median: number;
  p95: number;
  cpuMs: number;
  total: string;
} {
  for (let run = 0; run < 20; run += 1) price();
  const times: number[] = [];
  let total = "";
  const all = timed(() => {
    for (let run = 0; run < QUOTE_RUNS; run += 1) {
      const start = performance.now();
      total = price().toFixed();
      times.push(performance.now() - start);
    }
  });
  times.sort((a, b) => a - b);
  return {
    median: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    cpuMs: all.cpuMs / QUOTE_RUNS,
    total,
  };
}

function describeQuote(timing: ReturnType<typeof timeQuotes>): string {
  return `median ${timing.median.toFixed(2)} ms, p95 ${timing.p95.toFixed(2)} ms, CPU ${timing.cpuMs.toFixed(2)} ms/quote (total ${timing.total})`;
}

function main(): void {
  const rules = buildRuleSet();
  const points = buildPoints(POINTS);
  const quote = buildQuote();
  const ruleCount = rules.mappings.length + rules.thresholds.length;
  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;

  const compileStart = performance.now();
  const index = compileRuleSet(rules);
  const compileMs = performance.now() - compileStart;
  collectGarbage();
  const heapWithIndex = process.memoryUsage().heapUsed;

  let nonZero = 0;
  for (const point of points.slice(0, 5_000)) pricePoint(index, point);
  const fastPoints = timed(() => {
    for (const point of points) {
      if (!pricePoint(index, point).isZero()) nonZero += 1;
    }
  });
  const heapAfterPricing = process.memoryUsage().heapUsed;
  for (const point of points.slice(0, 5_000)) pricePointInDecimal(index, point);
  const decimalPoints = timed(() => {
    for (const point of points) pricePointInDecimal(index, point);
  });
  const fallbacks = points.filter((point) => priceExactly(index, point) === null).length;

  const fastQuote = timeQuotes(() => priceQuote(index, quote));
  const decimalQuote = timeQuotes(() => priceQuoteInDecimal(index, quote));

  const explained = timed(() => {
    for (const point of points.slice(0, EXPLAINED_POINTS)) explainPoint(index, point);
  });
  const lintStart = performance.now();
  const warningCount = findRuleSetWarnings(rules).length;
  const lintMs = performance.now() - lintStart;
  collectGarbage();
  const memory = process.memoryUsage();

  const report: [string, string][] = [
    [
      "rules",
      `${ruleCount} (${rules.mappings.length} mappings, ${rules.thresholds.length} thresholds)`,
    ],
    [
      "services / fields / groups / tenants",
      `${SERVICES} / ${rules.fields.length} / ${GROUPS} / ${TENANTS}`,
    ],
    ["compile", `${compileMs.toFixed(1)} ms`],
    ["priced points", `${POINTS} (${nonZero} non-zero, ${fallbacks} through decimal.js)`],
    ["pricePoint", perPoint(fastPoints, POINTS)],
    ["pricePoint, decimal.js only", perPoint(decimalPoints, POINTS)],
    [`priceQuote, ${QUOTE_RESOURCES} resources`, describeQuote(fastQuote)],
    [`priceQuote, decimal.js only`, describeQuote(decimalQuote)],
    ["explainPoint", perPoint(explained, EXPLAINED_POINTS)],
    ["findRuleSetWarnings", `${lintMs.toFixed(1)} ms (${warningCount} warnings)`],
    ["heap before index", megabytes(heapBefore)],
    [
      "heap with index",
      `${megabytes(heapWithIndex)} (index ~${megabytes(heapWithIndex - heapBefore)})`,
    ],
    ["heap after pricing (before gc)", megabytes(heapAfterPricing)],
    ["heap after gc", megabytes(memory.heapUsed)],
    ["rss", megabytes(memory.rss)],
    ["gc exposed", String(Boolean((globalThis as { gc?: unknown }).gc))],
  ];
  const width = Math.max(...report.map(([label]) => label.length));
  for (const [label, value] of report) console.log(`${label.padEnd(width)}  ${value}`);
}

main();
