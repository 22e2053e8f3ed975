import fs from "node:fs";
import type { Measurement } from "./load.js";
import type { Visibility } from "./visibility.js";

export interface WorkloadResult {
  workload: string;
  connections: number;
  ratecard: Measurement;
  /** The bare-Node replay of the same bytes, or the durable-insert server for writes. */
  limit: Measurement;
  limitKind: "replay" | "durable insert";
  /** The essentials floor of a read (--floor): what every answer must do, then the replay. */
  floor?: Measurement;
}

export interface Report {
  startedAt: string;
  /** Other processes' load skews both sides of a ratio: the 1-minute load average, before and after. */
  machine: { cpus: number; node: string; loadAverage: { before: number; after: number } };
  settings: {
    secondsPerWorkload: number;
    warmupSeconds: number;
    connections: number;
    /** Which CPUs the load generator and the servers ran on. */
    pinning: string;
  };
  auth: string;
  sqlite: { journalMode: string; synchronous: string; source: string };
  seeded: { small: number; large: number };
  workloads: WorkloadResult[];
  /** Resident memory of the server process, MiB. */
  rssMiB: { afterSmall: number | null; afterRun: number | null; atRest: number | null };
  /** How long the server was left without requests before `atRest` was read. */
  restSeconds: number;
  /** Of that, backed by files (node's code), MiB. */
  rssFileMiB: { afterSmall: number | null; afterRun: number | null };
  /** Spawning the server on the seeded database to its first /healthz answer, ms. */
  restartToFirstAnswerMs: number;
  /** A write on one server until a second server on the same database shows it. */
  /** Null when not measured (--only). */
  visibility: (Visibility & { database: string }) | null;
  /** Median time of one quote at one connection, minus the replay's: the server's own time. */
  quoteServerMs: number | null;
  totalSeconds: number;
}

/** Below this many answers a run says more about its start and end than about the server. */
const MIN_ANSWERS = 50;
const tooShort = (result: WorkloadResult) =>
  Math.min(result.ratecard.answers, result.limit.answers) < MIN_ANSWERS;

const ratio = (result: WorkloadResult) =>
  (100 * result.ratecard.requestsPerSecond) / result.limit.requestsPerSecond;
const floorRatio = (result: WorkloadResult) =>
  result.floor ? (100 * result.floor.requestsPerSecond) / result.limit.requestsPerSecond : null;

function pad(cells: string[], widths: number[]): string {
  return cells
    .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
    .join("  ");
}

const fixed = (value: number | null, digits: number) =>
  value === null || Number.isNaN(value) ? "-" : value.toFixed(digits);

export function formatReport(report: Report): string {
  const withFloor = report.workloads.some((result) => result.floor);
  const header = [
    "workload",
    "conn",
    "Ratecard req/s",
    "limit req/s",
    "ratio %",
    "p50 ms",
    "p99 ms",
    "limit p50 ms",
    "CPU µs/answer",
    "limit CPU µs",
    ...(withFloor ? ["floor %", "floor CPU µs"] : []),
    "failures",
  ];
  const rows = report.workloads.map((result) => [
    result.workload + (result.limitKind === "durable insert" ? " (limit: durable insert)" : ""),
    String(result.connections),
    fixed(result.ratecard.requestsPerSecond, 0),
    fixed(result.limit.requestsPerSecond, 0),
    fixed(ratio(result), 1) + (tooShort(result) ? "*" : ""),
    fixed(result.ratecard.p50Ms, 2),
    fixed(result.ratecard.p99Ms, 2),
    fixed(result.limit.p50Ms, 2),
    fixed(result.ratecard.cpuMicrosPerAnswer ?? null, 1),
    fixed(result.limit.cpuMicrosPerAnswer ?? null, 1),
    ...(withFloor
      ? [fixed(floorRatio(result), 1), fixed(result.floor?.cpuMicrosPerAnswer ?? null, 1)]
      : []),
    String(result.ratecard.failures + result.limit.failures + (result.floor?.failures ?? 0)),
  ]);
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => row[i]!.length)));
  const { settings, machine } = report;
  return [
    `Ratecard benchmark, ${report.startedAt}: ${machine.cpus} CPUs, Node ${machine.node}, ` +
      `load average ${fixed(machine.loadAverage.before, 2)} before, ${fixed(machine.loadAverage.after, 2)} after`,
    `${settings.secondsPerWorkload} s per workload and server, after ${settings.warmupSeconds} s of warm-up; ${settings.pinning}`,
    `auth: ${report.auth}; access log on (LOG_LEVEL=info, to a file)`,
    `SQLite: journal_mode=${report.sqlite.journalMode}, synchronous=${report.sqlite.synchronous} ` +
      `(${report.sqlite.source})`,
    `seeded: ${report.seeded.small} then ${report.seeded.large} mappings on one field`,
    "",
    pad(header, widths),
    pad(
      widths.map((width) => "-".repeat(width)),
      widths,
    ),
    ...rows.map((row) => pad(row, widths)),
    ...(report.workloads.some(tooShort)
      ? [`* fewer than ${MIN_ANSWERS} answers on one side: too short to compare, raise --seconds`]
      : []),
    ...(withFloor
      ? [
          "floor: a bare node:http server doing only what every Ratecard answer must do (request id, " +
            "access line, metrics, token digest, data_version) before replaying the same bytes, as % of the limit",
        ]
      : []),
    "",
    `quote server time (p50 at 1 connection, minus the replay's): ${fixed(report.quoteServerMs, 2)} ms`,
    `server RSS: ${fixed(report.rssMiB.afterSmall, 1)} MiB after the ${report.seeded.small}-mapping workloads, ` +
      `${fixed(report.rssMiB.afterRun, 1)} MiB after the run (of which ${fixed(report.rssFileMiB.afterSmall, 1)} ` +
      `and ${fixed(report.rssFileMiB.afterRun, 1)} MiB file-backed: node's own code), ` +
      `${fixed(report.rssMiB.atRest, 1)} MiB after ${report.restSeconds} s at rest`,
    `restart on the seeded database to first answer: ${fixed(report.restartToFirstAnswerMs, 0)} ms`,
    report.visibility
      ? `cross-instance visibility on ${report.visibility.database} (${report.visibility.writes} writes, each read on a second server ` +
        `until shown): p50 ${fixed(report.visibility.p50Ms, 2)} ms, p99 ${fixed(report.visibility.p99Ms, 2)} ms, ` +
        `max ${fixed(report.visibility.maxMs, 2)} ms, ${report.visibility.staleReads} stale reads`
      : "cross-instance visibility: not measured (--only)",
    `total: ${fixed(report.totalSeconds, 1)} s`,
  ].join("\n");
}

export function writeJson(file: string, report: Report): void {
  const workloads = report.workloads.map((result) => ({
    ...result,
    ratioPercent: ratio(result),
    floorRatioPercent: floorRatio(result),
    tooShort: tooShort(result),
  }));
  fs.writeFileSync(file, `${JSON.stringify({ ...report, workloads }, null, 2)}\n`);
}
