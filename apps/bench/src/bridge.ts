import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { startRatecard, type RatecardProcess } from "./ratecard.js";

// The CloudKitty bridge's timings (issue 14): import, plan and apply of N mappings against the
// local CloudKitty 17 (../shared/reference/cloudkitty, noauth, SQLite). Run by hand after
// `pnpm build`, under the bench lock; it starts and stops its own CloudKitty and Ratecard:
//
//   flock /tmp/bench.lock node apps/bench/dist/bridge.js --sizes 2000,10000
//
// For each size: CloudKitty's SQLite is filled directly (N tenant-less field mappings, 500 per
// field, two fields per service; seeding N through its API would itself take minutes), Ratecard
// imports it (timed), plans against it (timed: an empty plan), then CloudKitty is emptied and
// Ratecard plans (every object a create, timed), applies that plan (timed: every object written
// through CloudKitty's API as the apply sends them), checks drift and plans again (both timed,
// both empty).

const run = promisify(execFile);
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const REFERENCE = path.resolve(REPO_ROOT, "../shared/reference/cloudkitty");
const PER_FIELD = 500;

interface Options {
  sizes: number[];
  ckDir: string;
  ckPort: number;
  json: string | undefined;
}

function readOptions(argv: string[]): Options {
  const options: Options = {
    sizes: [2000, 10000],
    ckDir: "/tmp/ck-bench-bridge",
    ckPort: 8971,
    json: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    switch (argv[i]) {
      case "--sizes":
        options.sizes = (value ?? "").split(",").map(Number);
        i++;
        break;
      case "--ck-dir":
        options.ckDir = value ?? options.ckDir;
        i++;
        break;
      case "--ck-port":
        options.ckPort = Number(value);
        i++;
        break;
      case "--json":
        options.json = value;
        i++;
        break;
      default:
        throw new Error(
          `unknown option ${argv[i]}; usage: bridge.js [--sizes 2000,10000] [--ck-dir DIR] [--ck-port PORT] [--json FILE]`,
        );
    }
  }
  if (options.sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error("bad --sizes");
  return options;
}

/** One JSON exchange with Ratecard, with no deadline: an apply of 10,000 rules takes minutes. */
interface PlanAnswer {
  plan_id: string;
  operations: unknown[];
  counts: { create: number };
}
interface ImportAnswer {
  read_ms: number;
  write_ms: number;
  request_count: number;
}

function call<T>(
  ratecard: RatecardProcess,
  method: string,
  urlPath: string,
  body?: unknown,
): Promise<{ status: number; json: T; ms: number }> {
  const began = performance.now();
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(urlPath, ratecard.baseUrl),
      {
        method,
        headers: {
          ...ratecard.authHeaders,
          ...(payload
            ? { "content-type": "application/json", "content-length": payload.length }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          const ms = performance.now() - began;
          const status = res.statusCode ?? 0;
          if (status >= 300) {
            reject(new Error(`${method} ${urlPath}: ${status} ${text.slice(0, 500)}`));
            return;
          }
          resolve({ status, json: (text ? JSON.parse(text) : undefined) as T, ms });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * N field mappings straight into CloudKitty's tables, as its API would have stored them: 500 per
 * field, two fields per service (CloudKitty 17 reads a list row by row; one field of 10,000
 * mappings takes longer to list than Ratecard's 30 s deadline per request on a busy machine).
 */
function seedCloudKitty(databasePath: string, n: number): void {
  const db = new Database(databasePath);
  try {
    db.transaction(() => {
      const service = db.prepare("INSERT INTO hashmap_services (service_id, name) VALUES (?, ?)");
      const field = db.prepare(
        "INSERT INTO hashmap_fields (field_id, name, service_id) VALUES (?, ?, ?)",
      );
      const insert = db.prepare(
        "INSERT INTO hashmap_mappings (mapping_id, value, cost, map_type, field_id) VALUES (?, ?, ?, 'flat', ?)",
      );
      let fieldRow: number | bigint = 0;
      for (let i = 0; i < n; i++) {
        const f = Math.floor(i / PER_FIELD);
        if (i % PER_FIELD === 0) {
          if (f % 2 === 0) service.run(randomUUID(), `service-${String(f / 2).padStart(3, "0")}`);
          const serviceRow = db.prepare("SELECT max(id) AS id FROM hashmap_services").get() as {
            id: number;
          };
          fieldRow = field.run(randomUUID(), `field-${f % 2}`, serviceRow.id).lastInsertRowid;
        }
        // Costs a double holds exactly (k/64), as CloudKitty on SQLite keeps doubles.
        insert.run(
          randomUUID(),
          `value-${String(i).padStart(6, "0")}`,
          (1 + (i % 640)) / 64,
          fieldRow,
        );
      }
    })();
  } finally {
    db.close();
  }
}

interface SizeResult {
  mappings: number;
  import_ms: number;
  import_read_ms: number;
  import_write_ms: number;
  import_requests: number;
  plan_empty_ms: number;
  plan_creates_ms: number;
  plan_creates: number;
  apply_ms: number;
  apply_status: string;
  apply_ms_per_write: number;
  drift_ms: number;
  drift_differences: number;
  plan_after_ms: number;
  plan_after_operations: number;
}

async function measureSize(options: Options, n: number): Promise<SizeResult> {
  const env = { ...process.env, CK_DIR: options.ckDir, CK_PORT: String(options.ckPort) };
  const ckUrl = `http://127.0.0.1:${options.ckPort}`;
  await run(path.join(REFERENCE, "reset.sh"), [], { env });
  seedCloudKitty(path.join(options.ckDir, "cloudkitty.sqlite"), n);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-bench-bridge-"));
  const ratecard = await startRatecard({
    databasePath: path.join(dir, "ratecard.db"),
    logPath: path.join(dir, "server.log"),
    preferAuth: false,
  });
  try {
    const target = await call<{ target_id: string }>(ratecard, "POST", "/v1/ratecard/targets", {
      name: "bench",
      mode: "managed",
      connection: { kind: "noauth", url: ckUrl },
    });
    const id = target.json.target_id;
    const base = `/v1/ratecard/targets/${id}`;
    await call<unknown>(ratecard, "POST", `${base}/probe`, {});

    const imported = await call<ImportAnswer>(ratecard, "POST", `${base}/import`, {});
    log(
      `  ${n}: import ${ms(imported.ms)} (read ${ms(imported.json.read_ms)}, write ${ms(imported.json.write_ms)}, ${imported.json.request_count} requests)`,
    );
    const planEmpty = await call<PlanAnswer>(ratecard, "POST", `${base}/plan`, {});
    log(
      `  ${n}: plan, nothing to do ${ms(planEmpty.ms)} (${planEmpty.json.operations.length} operations)`,
    );

    await run(path.join(REFERENCE, "reset.sh"), [], { env });
    const plan = await call<PlanAnswer>(ratecard, "POST", `${base}/plan`, {});
    log(`  ${n}: plan, ${plan.json.counts.create} creates ${ms(plan.ms)}`);
    log(`  ${n}: applying ${plan.json.counts.create} creates...`);
    const apply = await call<{ status: string }>(ratecard, "POST", `${base}/apply`, {
      plan_id: plan.json.plan_id,
    });
    const writes = plan.json.counts.create;
    log(
      `  ${n}: apply ${ms(apply.ms)} (${apply.json.status}; ${(apply.ms / writes).toFixed(1)} ms per write)`,
    );
    const drift = await call<{ differences: unknown[]; counts: Record<string, number> }>(
      ratecard,
      "GET",
      `${base}/drift`,
    );
    // The bench's services are named after no metric CloudKitty collects: unknown_metric each.
    const kinds = Object.entries(drift.json.counts)
      .filter(([, count]) => count > 0)
      .map(([kind, count]) => `${count} ${kind}`);
    log(`  ${n}: drift ${ms(drift.ms)} (${kinds.join(", ") || "no differences"})`);
    const after = await call<PlanAnswer>(ratecard, "POST", `${base}/plan`, {});
    log(`  ${n}: plan after apply ${ms(after.ms)} (${after.json.operations.length} operations)`);
    return {
      mappings: n,
      import_ms: Math.round(imported.ms),
      import_read_ms: imported.json.read_ms,
      import_write_ms: imported.json.write_ms,
      import_requests: imported.json.request_count,
      plan_empty_ms: Math.round(planEmpty.ms),
      plan_creates_ms: Math.round(plan.ms),
      plan_creates: writes,
      apply_ms: Math.round(apply.ms),
      apply_status: apply.json.status,
      apply_ms_per_write: Number((apply.ms / writes).toFixed(1)),
      drift_ms: Math.round(drift.ms),
      drift_differences: drift.json.differences.length,
      plan_after_ms: Math.round(after.ms),
      plan_after_operations: after.json.operations.length,
    };
  } finally {
    await ratecard.stop();
  }
}

const ms = (value: number) =>
  value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
const log = (line: string) => process.stdout.write(`${line}\n`);

async function main() {
  const options = readOptions(process.argv.slice(2));
  const env = { ...process.env, CK_DIR: options.ckDir, CK_PORT: String(options.ckPort) };
  log(
    `CloudKitty 17 (${options.ckDir}, port ${options.ckPort}); load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  await run(path.join(REFERENCE, "start.sh"), [], { env, timeout: 15 * 60_000 });
  const results: SizeResult[] = [];
  try {
    for (const n of options.sizes) {
      results.push(await measureSize(options, n));
      if (options.json) fs.writeFileSync(options.json, `${JSON.stringify(results, null, 2)}\n`);
    }
  } finally {
    await run(path.join(REFERENCE, "stop.sh"), [], { env });
  }
  console.table(results);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
