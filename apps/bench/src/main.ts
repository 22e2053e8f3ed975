/**
 * Ratecard against the physical limit of a Node server, in one run: see issue 8 and USAGE.
 * Starts the built server with local auth and its access log on, seeds it over REST, and for each
 * workload measures Ratecard, then a bare node:http server replaying the same answer's bytes (or
 * doing one durable SQLite INSERT per request, for writes).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import "./children.js";
import { closeConnections } from "./http.js";
import { readDurability } from "./limits.js";
import { readOptions, type Options } from "./options.js";
import { choosePinning, usePinning } from "./pinning.js";
import { resident } from "./proc.js";
import { startRatecard, tail, type RatecardProcess } from "./ratecard.js";
import { formatReport, writeJson, type Report, type WorkloadResult } from "./report.js";
import { seedMappings, seedParents, type Seeded } from "./seed.js";
import { measureVisibility, type Visibility } from "./visibility.js";
import {
  createMappingWorkload,
  listWorkload,
  quoteWorkload,
  readWorkloads,
  runWorkload,
  type RunSettings,
  type Workload,
} from "./workloads.js";

const launched = performance.now();
function progress(message: string): void {
  const seconds = ((performance.now() - launched) / 1000).toFixed(1);
  process.stderr.write(`[bench ${seconds.padStart(5)} s] ${message}\n`);
}

async function benchmark(options: Options, workDir: string): Promise<Report> {
  const began = performance.now();
  const loadBefore = os.loadavg()[0] ?? 0;
  const databasePath = path.join(workDir, "ratecard.db");
  const logPath = path.join(workDir, "server.log");
  const pinning = choosePinning(options.pin);
  usePinning(pinning);
  progress(`starting the server (log: ${logPath}); ${pinning.description}`);
  const startOptions = {
    databasePath,
    logPath,
    preferAuth: options.preferAuth,
    cpuProfileDir: options.cpuProfileDir,
    serverEntry: options.serverEntry,
    extraNodeOptions: options.serverNodeOptions,
  };
  let server: RatecardProcess = await startRatecard(startOptions);
  try {
    const auth =
      server.auth.strategy === "local"
        ? "AUTH_STRATEGY=local, the admin's session token in X-Auth-Token"
        : `AUTH_STRATEGY=noauth: ${server.auth.why}`;
    if (server.auth.strategy === "noauth") progress(`WARNING: ${auth}`);
    const sqlite = readDurability(databasePath, fs.readFileSync(logPath, "utf8"));
    const settings: RunSettings = {
      connections: options.connections,
      seconds: options.secondsPerWorkload,
      warmupSeconds: options.warmupSeconds,
      limitDatabase: { path: path.join(workDir, "durable-limit.db"), ...sqlite },
      ...(options.floor
        ? { floor: { databasePath, logPath: path.join(workDir, "floor-access.log") } }
        : {}),
    };
    const results: WorkloadResult[] = [];
    const wanted = (workload: Workload) =>
      !options.only || workload.name.toLowerCase().includes(options.only.toLowerCase());
    const run = async (workload: Workload) => {
      progress(workload.name);
      const result = await runWorkload(server, workload, settings);
      results.push(result);
      return result;
    };

    progress(`seeding ${options.smallMappings} mappings`);
    const parents = await seedParents(server);
    const mappingId = await seedMappings(server, parents.fieldId, 0, options.smallMappings);
    if (!mappingId) throw new Error("seeding created no mapping");
    let seeded: Seeded = { ...parents, mappingId, mappings: options.smallMappings };
    for (const workload of readWorkloads(server.authHeaders, seeded))
      if (wanted(workload)) await run(workload);
    const create = createMappingWorkload(server.authHeaders, seeded);
    if (wanted(create)) await run(create);
    const afterSmall = resident(server.pid);

    const visibility = options.only
      ? null
      : await crossInstanceVisibility(options, workDir, server, databasePath);

    const large = { ...seeded, mappings: options.largeMappings };
    const largeRound = [
      listWorkload(server.authHeaders, large),
      quoteWorkload(server.authHeaders, large, options.quoteResources),
      quoteWorkload(server.authHeaders, large, options.quoteResources, 1),
    ];
    let quoteServerMs: number | null = null;
    if (largeRound.some(wanted)) {
      progress(`growing to ${options.largeMappings} mappings`);
      await seedMappings(server, parents.fieldId, options.smallMappings, options.largeMappings);
      seeded = large;
      for (const workload of largeRound) {
        if (!wanted(workload)) continue;
        const result = await run(workload);
        if (workload.connections === 1) quoteServerMs = result.ratecard.p50Ms - result.limit.p50Ms;
      }
    }
    const afterRun = resident(server.pid);
    // What the server holds once at rest: V8 gives back what the run left behind only after a few
    // seconds without work (its memory reducer), so the figure right after the last workload is
    // the peak's tail, not what a server between bursts keeps.
    progress(`the server at rest for ${options.restSeconds} s`);
    await new Promise((resolve) => setTimeout(resolve, options.restSeconds * 1000));
    const atRest = resident(server.pid);

    progress("restarting on the seeded database");
    await server.stop();
    server = await startRatecard(startOptions);
    const restartMs = server.startMs;

    return {
      startedAt: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        node: process.version,
        loadAverage: { before: loadBefore, after: os.loadavg()[0] ?? 0 },
      },
      settings: {
        secondsPerWorkload: options.secondsPerWorkload,
        warmupSeconds: options.warmupSeconds,
        connections: options.connections,
        pinning:
          pinning.description +
          (options.serverEntry ? `; server: ${options.serverEntry}` : "") +
          (options.serverNodeOptions
            ? `; EXPERIMENT: node flags added to start.sh's: ${options.serverNodeOptions}`
            : ""),
      },
      auth,
      sqlite,
      seeded: { small: options.smallMappings, large: options.largeMappings },
      workloads: results,
      rssMiB: {
        afterSmall: afterSmall?.rssMiB ?? null,
        afterRun: afterRun?.rssMiB ?? null,
        atRest: atRest?.rssMiB ?? null,
      },
      restSeconds: options.restSeconds,
      rssFileMiB: { afterSmall: afterSmall?.fileMiB ?? null, afterRun: afterRun?.fileMiB ?? null },
      restartToFirstAnswerMs: restartMs,
      visibility,
      quoteServerMs,
      totalSeconds: (performance.now() - began) / 1000,
    };
  } catch (error) {
    progress(`failed; the server's last log lines:\n${tail(logPath)}`);
    throw error;
  } finally {
    await server.stop();
  }
}

/**
 * A write on one server, timed until a second server on the same database shows it: the bench's
 * own server and a second one on its SQLite file, or two fresh servers on --visibility-database.
 */
async function crossInstanceVisibility(
  options: Options,
  workDir: string,
  server: RatecardProcess,
  databasePath: string,
): Promise<Visibility & { database: string }> {
  const database = options.visibilityDatabase ?? databasePath;
  const where = options.visibilityDatabase ? "PostgreSQL" : "SQLite";
  progress(`cross-instance visibility on ${where}: ${options.visibilityWrites} writes`);
  const start = (name: string) =>
    startRatecard({
      databasePath: database,
      logPath: path.join(workDir, `${name}.log`),
      preferAuth: options.preferAuth,
    });
  const writer = options.visibilityDatabase ? await start("visibility-writer") : server;
  try {
    const reader = await start("visibility-reader");
    try {
      const measured = await measureVisibility(writer, reader, options.visibilityWrites);
      return { ...measured, database: where };
    } finally {
      await reader.stop();
    }
  } finally {
    if (writer !== server) await writer.stop();
  }
}

async function main(): Promise<number> {
  const options = readOptions(process.argv.slice(2));
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-bench-"));
  // On exit rather than in `finally`, so that an interrupted run cleans up too.
  if (!options.keepFiles)
    process.once("exit", () => fs.rmSync(workDir, { recursive: true, force: true }));
  try {
    const report = await benchmark(options, workDir);
    process.stdout.write(`${formatReport(report)}\n`);
    if (options.json) writeJson(options.json, report);
    const failures = report.workloads.filter(
      (r) => r.ratecard.failures + r.limit.failures + (r.floor?.failures ?? 0) > 0,
    );
    if (failures.length === 0) return 0;
    progress(`FAILED answers in: ${failures.map((r) => r.workload).join(", ")}`);
    return 1;
  } finally {
    closeConnections();
    if (options.keepFiles) progress(`kept ${workDir}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
