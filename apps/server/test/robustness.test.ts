import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createClient,
  HASHMAP,
  PYSCRIPTS,
  type ApiResponse,
  type Client,
} from "./support/client.js";
import {
  expectCreated,
  expectFault,
  seeder,
  snapshotHashmap,
  uniqueName,
  type Seeder,
} from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

const REQUEST_ID = /^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const sha512 = (text: string) => createHash("sha512").update(text, "utf8").digest("hex");
const temporaryDirectory = () => fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-robustness-"));

/** Starts a server expected to refuse to start; returns what it printed. */
async function failedStart(env: Record<string, string>): Promise<string> {
  const failure = await startServer({ env }).then(
    async (server) => {
      await server.stop();
      throw new Error(`the server started with ${JSON.stringify(env)}`);
    },
    (error: Error) => error.message,
  );
  return failure;
}

describe("request ids", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startServer({ env: { BODY_LIMIT_BYTES: "4096" } });
    api = createClient(server.baseUrl);
  });
  afterAll(async () => {
    await server.stop();
  });

  it("sends x-openstack-request-id on every answer, successes and errors alike, each one new", async () => {
    const service = expectCreated(
      await api.post(`${HASHMAP}/services`, { name: uniqueName("ids") }),
    );
    const answers: [string, ApiResponse | Response][] = [
      ["200", await api.get(`${HASHMAP}/types`)],
      ["201", await api.post(`${HASHMAP}/groups`, { name: uniqueName("ids") })],
      ["204", await api.delete(`${HASHMAP}/services/${service.service_id}`)],
      ["400 bad JSON", await api.post(`${HASHMAP}/services`, "{nope")],
      ["400 validation", await api.post(`${HASHMAP}/services`, { name: 42 })],
      ["404 object", await api.get(`${HASHMAP}/services/nope`)],
      ["404 route", await api.get("/v1/nowhere")],
      ["outside /v1", await fetch(`${server.baseUrl}/nowhere`)],
      ["405", await api.request("PATCH", `${HASHMAP}/services`)],
      [
        "409",
        await api
          .post(`${HASHMAP}/services`, { name: service.name })
          .then(() => api.post(`${HASHMAP}/services`, { name: service.name })),
      ],
      ["413", await api.post(`${PYSCRIPTS}/scripts`, { name: "big", data: "x".repeat(8192) })],
      [
        "415",
        await api.post(`${HASHMAP}/services`, "name=x", {
          headers: { "Content-Type": "text/plain" },
        }),
      ],
      ["openapi", await api.get("/v1/openapi.json")],
      ["healthz", await api.get("/healthz")],
      ["docs", await fetch(`${server.baseUrl}/docs`)],
      ["docs asset", await fetch(`${server.baseUrl}/docs/assets/swagger-ui.css`)],
      ["trpc", await fetch(`${server.baseUrl}/trpc/hashmap.types.list`)],
      ["trpc 404", await fetch(`${server.baseUrl}/trpc/nothing.here`)],
    ];
    const statuses = answers.map(([label, answer]) => `${label}: ${answer.status}`);
    expect(statuses).toContain("413: 413");
    expect(statuses).toContain("405: 405");
    expect(statuses).toContain("415: 415");
    const ids = answers.map(([label, answer]) => {
      const id = answer.headers.get("x-openstack-request-id");
      expect(id, label).toMatch(REQUEST_ID);
      return id;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("logs each request with its id, so an answer can be found in the log", async () => {
    const answer = await api.get(`${HASHMAP}/services/nope`);
    const id = answer.headers.get("x-openstack-request-id")!;
    const deadline = Date.now() + 5_000;
    while (!server.output().includes(id) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const line = server
      .output()
      .split("\n")
      .find((entry) => entry.includes(id));
    expect(JSON.parse(line!)).toMatchObject({
      req: { id, method: "GET", url: `${HASHMAP}/services/nope` },
      res: { status: 404 },
    });
  });
});

/** POSTs `body` over its own keep-alive connection in `chunks` pieces, `pauseMs` apart. */
function slowPost(
  baseUrl: string,
  pathname: string,
  body: string,
  chunks: number,
  pauseMs: number,
) {
  const url = new URL(pathname, baseUrl);
  const agent = new http.Agent({ keepAlive: true });
  let firstChunkSent: () => void;
  const started = new Promise<void>((resolve) => (firstChunkSent = resolve));
  const answered = new Promise<{ status: number; body: string; at: number }>((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        agent,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: text, at: Date.now() }),
        );
      },
    );
    request.on("error", reject);
    const size = Math.ceil(body.length / chunks);
    const write = (chunk: string) => new Promise((resolve) => request.write(chunk, resolve));
    void (async () => {
      for (let index = 0; index < chunks; index += 1) {
        await write(body.slice(index * size, (index + 1) * size));
        // Written to the socket is not yet accepted by the server: give it a moment.
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
        if (index === 0) firstChunkSent();
      }
      request.end();
    })();
  });
  return { started, answered, close: () => agent.destroy() };
}

describe("graceful shutdown", () => {
  it("finishes in-flight requests after SIGTERM, exits 0 promptly, and leaves the database whole", async () => {
    const server = await startServer({ env: { SHUTDOWN_TIMEOUT_MS: "30000" } });
    const api = createClient(server.baseUrl);
    const before = expectCreated(
      await api.post(`${HASHMAP}/services`, { name: "before-shutdown" }),
    );
    const data = "rate = Decimal('0.01') # ✓\n".repeat(60_000);
    const uploads = [1, 2].map((index) =>
      slowPost(
        server.baseUrl,
        `${PYSCRIPTS}/scripts`,
        JSON.stringify({ name: `in-flight-${index}`, data }),
        8,
        150,
      ),
    );
    await Promise.all(uploads.map((upload) => upload.started));
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      server.process.once("exit", (code) => resolve({ code, at: Date.now() })),
    );
    server.process.kill("SIGTERM");

    const answers = await Promise.all(uploads.map((upload) => upload.answered));
    for (const answer of answers) {
      expect(answer.status, answer.body).toBe(201);
      expect(JSON.parse(answer.body).checksum).toBe(sha512(data));
    }
    const exit = await exited;
    expect(exit.code, server.output()).toBe(0);
    // The clients keep their connections open: the server must not wait for them to time out.
    expect(exit.at - Math.max(...answers.map((answer) => answer.at))).toBeLessThan(2_000);
    for (const upload of uploads) upload.close();

    const restarted = await startServer({ databasePath: server.databasePath });
    try {
      const again = createClient(restarted.baseUrl);
      expect((await again.get(`${HASHMAP}/services/${before.service_id}`)).body).toEqual(before);
      const { scripts } = (await again.get(`${PYSCRIPTS}/scripts`)).body;
      expect(scripts.map((script: { name: string }) => script.name).sort()).toEqual([
        "in-flight-1",
        "in-flight-2",
      ]);
      for (const script of scripts) {
        expect(script.data === data).toBe(true);
        expect(script.checksum).toBe(sha512(data));
      }
    } finally {
      await restarted.stop();
    }
  });

  it("exits 0 on SIGINT too", async () => {
    const server = await startServer();
    const exited = new Promise<number | null>((resolve) => server.process.once("exit", resolve));
    server.process.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(server.output()).toContain('"signal":"SIGINT"');
  });
});

describe("restart on an existing database", () => {
  it("applies the migrations again without losing any data", async () => {
    const first = await startServer();
    const api = createClient(first.baseUrl);
    const seed = seeder(api);
    const { fieldId, serviceId } = await seed.parents();
    const group = await seed.group();
    await seed.mapping({
      field_id: fieldId,
      value: "m1.small",
      cost: "0.2",
      group_id: group.group_id,
      tenant_id: "t",
    });
    await seed.threshold({ service_id: serviceId, level: "10", cost: "1.5" });
    const script = expectCreated(
      await api.post(`${PYSCRIPTS}/scripts`, { name: "kept", data: "# ✓" }),
    );
    expect((await api.put("/v1/rating/modules/noop", { enabled: true, priority: 9 })).status).toBe(
      200,
    );
    const snapshot = await snapshotHashmap(api);
    const modules = (await api.get("/v1/rating/modules")).body;
    expect(await first.stop()).toBe(0);

    for (let restart = 0; restart < 2; restart += 1) {
      const again = await startServer({ databasePath: first.databasePath });
      try {
        const client = createClient(again.baseUrl);
        expect(await snapshotHashmap(client)).toEqual(snapshot);
        expect((await client.get("/v1/rating/modules")).body).toEqual(modules);
        expect((await client.get(`${PYSCRIPTS}/scripts/${script.script_id}`)).body).toEqual(script);
      } finally {
        expect(await again.stop()).toBe(0);
      }
    }
  });

  it("initialises an existing empty file", async () => {
    const databasePath = path.join(temporaryDirectory(), "empty.db");
    fs.writeFileSync(databasePath, "");
    const server = await startServer({ databasePath });
    try {
      const api = createClient(server.baseUrl);
      expect((await api.get(`${HASHMAP}/services`)).body).toEqual({ services: [] });
      expectCreated(await api.post(`${HASHMAP}/services`, { name: "first" }));
    } finally {
      await server.stop();
    }
    expect(fs.statSync(databasePath).size).toBeGreaterThan(0);
  });
});

describe("keep-alive connections", () => {
  /** GET /v1 on the agent's connection: the answer's Keep-Alive header and whether it reused one. */
  const get = (baseUrl: string, agent: http.Agent) =>
    new Promise<{ keepAlive: string | undefined; reused: boolean }>((resolve, reject) => {
      const request = http.get(`${baseUrl}/v1`, { agent }, (response) => {
        response.resume();
        response.on("end", () =>
          resolve({
            keepAlive: response.headers["keep-alive"] as string | undefined,
            reused: request.reusedSocket,
          }),
        );
      });
      request.on("error", reject);
    });

  it("stay open past Node's 5 s default, so a client pausing a few seconds does not meet a reset", async () => {
    const server = await startServer();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await get(server.baseUrl, agent)).toEqual({ keepAlive: "timeout=65", reused: false });
      // With Node's default the server would close the idle socket at 5 s, and a request sent as
      // it does so (Playwright's, a proxy's) fails with ECONNRESET.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(await get(server.baseUrl, agent)).toEqual({ keepAlive: "timeout=65", reused: true });
    } finally {
      agent.destroy();
      await server.stop();
    }
  }, 20_000);
});

describe("configuration", () => {
  it("listens on PORT and keeps its data where DATABASE_URL says, creating missing directories", async () => {
    const databasePath = path.join(temporaryDirectory(), "not", "yet", "there", "ratecard.db");
    expect(fs.existsSync(path.dirname(databasePath))).toBe(false);
    const server = await startServer({ databasePath });
    try {
      expect(fs.existsSync(databasePath)).toBe(true);
      expect(server.output()).toContain(`Ratecard listening on http://127.0.0.1:${server.port}`);
      expect(server.output()).toContain(`"database":"file:${databasePath}"`);
      const api = createClient(server.baseUrl);
      expectCreated(await api.post(`${HASHMAP}/services`, { name: "where-it-belongs" }));
    } finally {
      await server.stop();
    }
    // The data is in that file: another server on it sees it.
    const again = await startServer({ databasePath });
    try {
      const { services } = (await createClient(again.baseUrl).get(`${HASHMAP}/services`)).body;
      expect(services.map((service: { name: string }) => service.name)).toEqual([
        "where-it-belongs",
      ]);
    } finally {
      await again.stop();
    }
  });

  it.each(["abc", "70000", "-1", "1e3", "0x50", " 80", "80.5"])(
    "refuses PORT=%j: exits 1 with one clear line",
    async (port) => {
      const failure = await failedStart({ PORT: port });
      expect(failure).toMatch(/^server exited with 1:/);
      expect(failure).toContain(
        `Ratecard cannot start: PORT must be an integer from 0 to 65535, got "${port}"`,
      );
      expect(failure).not.toMatch(/^\s+at /m);
    },
  );

  it("exits 1 with a clear message when the port is taken", async () => {
    const holder = await startServer();
    try {
      const failure = await failedStart({ PORT: String(holder.port) });
      expect(failure).toMatch(/^server exited with 1:/);
      expect(failure).toContain(
        `Ratecard cannot start: cannot listen on 127.0.0.1:${holder.port}: the address is already in use`,
      );
      expect(failure).not.toMatch(/^\s+at /m);
      // The server that holds the port is unharmed.
      expect((await fetch(`${holder.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await holder.stop();
    }
  });

  it("exits 1 naming the problem for a DATABASE_URL that is neither SQLite nor PostgreSQL", async () => {
    const failure = await failedStart({ DATABASE_URL: "mysql://localhost/ratecard" });
    expect(failure).toMatch(/^server exited with 1:/);
    expect(failure).toContain(
      'Ratecard cannot start: Unsupported DATABASE_URL "mysql://localhost/ratecard"',
    );
  });
});

describe("multi-row changes are one transaction", () => {
  let server: TestServer;
  let api: Client;
  let seed: Seeder;
  beforeAll(async () => {
    server = await startServer();
    api = createClient(server.baseUrl);
    seed = seeder(api);
  });
  afterAll(async () => {
    await server.stop();
  });

  /**
   * A group whose mappings could move to no group but whose second threshold collides there: the
   * group delete's first statement (mappings) succeeds, its second (thresholds) fails.
   */
  async function groupThatCannotBeDissolved() {
    const { fieldId } = await seed.parents();
    const group = await seed.group();
    await seed.mapping({ field_id: fieldId, value: "a", group_id: group.group_id });
    await seed.mapping({ field_id: fieldId, value: "b", group_id: group.group_id });
    await seed.threshold({ field_id: fieldId, level: "1", group_id: group.group_id });
    await seed.threshold({ field_id: fieldId, level: "2", group_id: group.group_id });
    await seed.threshold({ field_id: fieldId, level: "2" });
    return group;
  }

  it.each([
    ["the id in the path", (groupId: string) => ({ path: `groups/${groupId}`, options: {} })],
    [
      "recursive=false",
      (groupId: string) => ({
        path: `groups/${groupId}`,
        options: { query: { recursive: "false" } },
      }),
    ],
    [
      "the CLI's body",
      (groupId: string) => ({
        path: "groups/",
        options: { body: { group_id: groupId, recursive: false } },
      }),
    ],
  ])(
    "a refused non-recursive group delete (%s) leaves the group and every rule as they were",
    async (_, request) => {
      const group = await groupThatCannotBeDissolved();
      const before = await snapshotHashmap(api);
      const { path: target, options } = request(group.group_id);
      const answer = await api.delete(`${HASHMAP}/${target}`, options);
      expectFault(answer, 409, /^Group .* cannot be deleted without its rules/);
      expect(await snapshotHashmap(api)).toEqual(before);
      expect(
        (await api.get(`${HASHMAP}/groups/mappings`, { query: { group_id: group.group_id } })).body
          .mappings,
      ).toHaveLength(2);
    },
  );

  it("a recursive delete of the same group removes the group and all its rules, nothing else", async () => {
    const group = await groupThatCannotBeDissolved();
    const before = await snapshotHashmap(api);
    expect(
      (await api.delete(`${HASHMAP}/groups/${group.group_id}`, { query: { recursive: "true" } }))
        .status,
    ).toBe(204);
    const after = await snapshotHashmap(api);
    expect(after.groups).toEqual(
      before.groups.filter((entry: { group_id: string }) => entry.group_id !== group.group_id),
    );
    expect(after.mappings).toEqual(
      before.mappings.filter((rule: { group_id: string }) => rule.group_id !== group.group_id),
    );
    expect(after.thresholds).toEqual(
      before.thresholds.filter((rule: { group_id: string }) => rule.group_id !== group.group_id),
    );
  });
});
