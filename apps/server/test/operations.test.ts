import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import { queryDatabase } from "./support/database.js";
import { startServer, type TestServer } from "./support/server.js";

// What a load balancer and Prometheus see: /healthz, /readyz and /metrics, over real HTTP.

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startServer();
  client = createClient(server.baseUrl);
});
afterAll(async () => {
  await server?.stop();
});

/** One sample's value from Prometheus' text format, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(): Promise<string> {
  const answer = await fetch(`${server.baseUrl}/metrics`);
  expect(answer.status).toBe(200);
  expect(answer.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return answer.text();
}

describe("health and readiness", () => {
  it("says alive on /healthz and ready on /readyz, with what was checked", async () => {
    const alive = await fetch(`${server.baseUrl}/healthz`);
    expect(alive.status).toBe(200);
    const ready = await fetch(`${server.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: "ready",
      ready: true,
      checks: { database: "ok", migrations: "ok", rules: "ok" },
    });
  });

  it("follows the migrations: a newer release's is noted, a missing one makes it not ready", async () => {
    const readiness = async () => {
      const answer = await fetch(`${server.baseUrl}/readyz`);
      return {
        status: answer.status,
        body: (await answer.json()) as { checks: Record<string, string> },
      };
    };
    const migrations = "_prisma_migrations";
    queryDatabase(
      server.databasePath,
      `INSERT INTO "${migrations}" ("id", "checksum", "migration_name", "finished_at", "applied_steps_count") ` +
        `VALUES ('test-newer', 'x', '29991231000000_from_the_future', CURRENT_TIMESTAMP, 1)`,
    );
    const ahead = await readiness();
    expect(ahead.status).toBe(200);
    expect(ahead.body.checks.migrations).toBe(
      "ok; applied by a newer Ratecard: 29991231000000_from_the_future",
    );
    queryDatabase(server.databasePath, `DELETE FROM "${migrations}" WHERE "id" = 'test-newer'`);
    const newest = queryDatabase(
      server.databasePath,
      `SELECT "migration_name" FROM "${migrations}" ORDER BY "migration_name" DESC LIMIT 1`,
    );
    queryDatabase(
      server.databasePath,
      `UPDATE "${migrations}" SET "rolled_back_at" = CURRENT_TIMESTAMP WHERE "migration_name" = '${newest}'`,
    );
    try {
      const behind = await readiness();
      expect(behind.status).toBe(503);
      expect(behind.body.checks.migrations).toBe(`not applied: ${newest}`);
    } finally {
      queryDatabase(
        server.databasePath,
        `UPDATE "${migrations}" SET "rolled_back_at" = NULL WHERE "migration_name" = '${newest}'`,
      );
    }
    expect((await readiness()).status).toBe(200);
  });
});

describe("Prometheus metrics", () => {
  it("counts requests by route template and status, never by raw id", async () => {
    const made = await client.post(`${HASHMAP}/services`, { name: "metered" });
    expect(made.status).toBe(201);
    const id = (made.body as { service_id: string }).service_id;
    expect((await client.get(`${HASHMAP}/services/${id}`)).status).toBe(200);
    const missing = "6f1f9b1e-3a0e-4f7e-9c41-2f0a6a1c8e11";
    expect((await client.get(`${HASHMAP}/services/${missing}`)).status).toBe(404);
    for (const probe of ["/v1/nothing/here", "/v1/nothing/else"])
      expect((await fetch(`${server.baseUrl}${probe}`)).status).toBe(404);

    const text = await scrape();
    const item = `route="${HASHMAP}/services/{service_id}"`;
    expect(sample(text, `ratecard_http_requests_total{method="GET",${item},status="200"}`)).toBe(1);
    expect(sample(text, `ratecard_http_requests_total{method="GET",${item},status="404"}`)).toBe(1);
    expect(
      sample(
        text,
        `ratecard_http_requests_total{method="POST",route="${HASHMAP}/services",status="201"}`,
      ),
    ).toBe(1);
    expect(
      sample(
        text,
        'ratecard_http_requests_total{method="GET",route="/v1/(unmatched)",status="404"}',
      ),
    ).toBe(2);
    expect(text).not.toContain(id);
    expect(text).not.toContain("/v1/nothing");
    expect(
      sample(
        text,
        `ratecard_http_request_duration_seconds_count{method="GET",${item},status="200"}`,
      ),
    ).toBe(1);
  });

  it("reports the read snapshot's hits and misses and the rating objects", async () => {
    const before = await scrape();
    const hitsBefore = sample(before, "ratecard_read_snapshot_hits_total") ?? 0;
    const missesBefore = sample(before, "ratecard_read_snapshot_misses_total") ?? 0;
    await client.post(`${HASHMAP}/groups`, { name: "counted" });
    for (let i = 0; i < 3; i++) expect((await client.get(`${HASHMAP}/groups`)).status).toBe(200);

    const after = await scrape();
    // The first read after the write computes the answer; the next two are served as kept.
    expect(sample(after, "ratecard_read_snapshot_misses_total")).toBe(missesBefore + 1);
    expect(sample(after, "ratecard_read_snapshot_hits_total")).toBe(hitsBefore + 2);
    expect(sample(after, "ratecard_read_snapshot_answers")).toBeGreaterThan(0);
    expect(sample(after, 'ratecard_rating_objects{kind="groups"}')).toBe(1);
    expect(sample(after, 'ratecard_rating_objects{kind="services"}')).toBe(1);
    expect(sample(after, 'ratecard_rating_objects{kind="mappings"}')).toBe(0);
    // A quote compiles the rule set once; a second quote on unchanged rules reuses it.
    const loadsBefore = sample(after, "ratecard_rule_set_loads_total") ?? 0;
    const quote = { resources: [{ service: "metered", desc: {}, volume: "1" }] };
    expect((await client.post("/v1/rating/quote", quote)).status).toBe(200);
    expect((await client.post("/v1/rating/quote", quote)).status).toBe(200);
    const quoted = await scrape();
    expect(sample(quoted, "ratecard_rule_set_loads_total")).toBe(loadsBefore + 1);
    expect(sample(quoted, "ratecard_rule_set_load_seconds_total")).toBeGreaterThan(0);
    // A connection pool only where there is one (PostgreSQL).
    const pooled = process.env.RATECARD_TEST_DATABASE === "postgresql";
    expect(sample(quoted, 'ratecard_database_connections{state="max"}')).toBe(
      pooled ? 10 : undefined,
    );
    // Node's own process metrics come with them.
    expect(sample(after, "process_resident_memory_bytes")).toBeGreaterThan(0);
  });

  it("counts a soft-deleted mapping out of the rating objects", async () => {
    const service = await client.post(`${HASHMAP}/services`, { name: "softly" });
    const mapping = await client.post(`${HASHMAP}/mappings`, {
      service_id: service.body.service_id,
      cost: "1",
      type: "flat",
    });
    expect(mapping.status, mapping.text).toBe(201);
    const counted = sample(await scrape(), 'ratecard_rating_objects{kind="mappings"}')!;
    expect(counted).toBeGreaterThan(0);
    expect((await client.delete(`${HASHMAP}/mappings/${mapping.body.mapping_id}`)).status).toBe(
      204,
    );
    // Still in the table as history (GET shows it deleted), but no longer a rule.
    expect(
      (await client.get(`${HASHMAP}/mappings/${mapping.body.mapping_id}`)).body.deleted,
    ).not.toBe(null);
    expect(sample(await scrape(), 'ratecard_rating_objects{kind="mappings"}')).toBe(counted - 1);
  });
});
