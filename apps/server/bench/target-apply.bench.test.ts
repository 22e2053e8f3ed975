import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient, HASHMAP } from "../test/support/client.js";
import { referenceCloudKitty } from "../test/support/cloudkitty.js";
import { startServer, type TestServer } from "../test/support/server.js";

// Plan, apply and import of N field mappings against the local CloudKitty 17 (noauth, SQLite,
// uWSGI with CK_PROCESSES processes and CK_THREADS threads): Ratecard is seeded, a managed target
// planned and applied into an empty CloudKitty, planned again (empty), and a second Ratecard
// imports what was applied. Figures are printed. RATECARD_BENCH_SIZES=2000,10000.
//
//   cd apps/server && CK_PROCESSES=2 CK_THREADS=2 flock /tmp/bench.lock \
//     pnpm exec vitest run --config bench/vitest.config.ts

const SIZES = (process.env.RATECARD_BENCH_SIZES ?? "2000").split(",").map(Number);
const TARGETS = "/v1/ratecard/targets";

const cloudKitty = referenceCloudKitty({
  dir: process.env.CK_BENCH_DIR ?? "/tmp/ck-engA-bench",
  port: Number(process.env.CK_BENCH_PORT ?? 8961),
});

const servers: TestServer[] = [];
const fresh = async () => {
  const server = await startServer({
    env: { DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-apply-bench-")) },
  });
  servers.push(server);
  return Object.assign(createClient(server.baseUrl), { baseUrl: server.baseUrl });
};
/**
 * A POST without a deadline: applying 10,000 rules takes longer than fetch's 300 s wait for
 * response headers.
 */
function postLong(
  url: string,
  body: unknown,
): Promise<{ status: number; body: any; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: "POST", headers: { "Content-Type": "application/json" } },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(text), text }),
        );
      },
    );
    request.on("error", reject);
    request.end(JSON.stringify(body));
  });
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

beforeAll(async () => {
  await cloudKitty.start();
});
afterAll(async () => {
  for (const server of servers) await server.stop();
  await cloudKitty.stop();
});

for (const [index, size] of SIZES.entries()) {
  it(`plans, applies and imports ${size} mappings`, async () => {
    // start.sh then reset.sh: an empty CloudKitty (the first one is beforeAll's).
    if (index > 0) await cloudKitty.start();
    const api = await fresh();
    const service = (await api.post(`${HASHMAP}/services`, { name: "compute" })).body.service_id;
    // 500 mappings a field: CloudKitty 17 queries each listed rule on its own, and one list of
    // 10,000 would outlast the client's 30 s per request.
    const fields: string[] = [];
    for (let f = 0; f < Math.ceil(size / 500); f++) {
      const name = `flavor_${f}`;
      fields.push(
        (await api.post(`${HASHMAP}/fields`, { service_id: service, name })).body.field_id,
      );
    }
    for (let start = 0; start < size; start += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, size - start) }, (_, i) => {
          const n = start + i;
          return api.post(`${HASHMAP}/mappings`, {
            field_id: fields[Math.floor(n / 500)],
            value: `flavor-${String(n).padStart(5, "0")}`,
            type: "flat",
            cost: `${(n * 7919) % 1000}.${String(n % 97).padStart(2, "0")}`,
          });
        }),
      );
    }
    const target = await api.post(TARGETS, {
      name: "bench",
      mode: "managed",
      connection: { kind: "noauth", url: cloudKitty.url },
    });
    const id = target.body.target_id;
    await api.post(`${TARGETS}/${id}/probe`, {});

    let t = performance.now();
    const plan = await api.post(`${TARGETS}/${id}/plan`, {});
    const planMs = performance.now() - t;
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body.counts.create).toBe(size + 1 + fields.length);

    t = performance.now();
    const applied = await postLong(`${api.baseUrl}${TARGETS}/${id}/apply`, {
      plan_id: plan.body.plan_id,
    });
    const applyMs = performance.now() - t;
    expect(applied.status, applied.text.slice(0, 2000)).toBe(200);
    expect(applied.body.status, applied.body.error).toBe("ok");

    t = performance.now();
    const again = await api.post(`${TARGETS}/${id}/plan`, {});
    const replanMs = performance.now() - t;
    expect(again.body.operations).toEqual([]);

    const other = await fresh();
    const source = await other.post(TARGETS, {
      name: "source",
      mode: "import-source",
      connection: { kind: "noauth", url: cloudKitty.url },
    });
    t = performance.now();
    const imported = await other.post(`${TARGETS}/${source.body.target_id}/import`, {});
    const importMs = performance.now() - t;
    expect(imported.status, imported.text.slice(0, 2000)).toBe(200);

    console.log(
      `[bench] ${size} mappings on ${fields.length} fields (CK_PROCESSES=${process.env.CK_PROCESSES ?? 1}, ` +
        `CK_THREADS=${process.env.CK_THREADS ?? 1}): plan into empty ${seconds(planMs)}, ` +
        `apply ${seconds(applyMs)} (${(applyMs / (size + 1 + fields.length)).toFixed(0)} ms per write), ` +
        `plan again (empty) ${seconds(replanMs)}, import ${seconds(importMs)} ` +
        `(${imported.body.request_count} requests)`,
    );
  });
}
