import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, PYSCRIPTS, type Client } from "./support/client.js";
import { seeder, snapshotHashmap } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";
import { seededRandom, type Random } from "./support/random.js";

// Bad requests over raw sockets, from a seeded generator: every one must get a complete HTTP answer
// below 500 (a fault for JSON 4xx outside /trpc), the server must live, and the data stay as it was.
// FUZZ_REQUESTS and FUZZ_SEED pick another run; a failure prints the seed and the request.

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const CONCURRENCY = 8;
const BODY_LIMIT = 65_536;
const LARGE_LIST = 300;

const METHODS = ["GET", "GET", "GET", "HEAD", "POST", "POST", "PUT", "DELETE", "DELETE"] as const;
const ODD_METHODS = [
  "PATCH",
  "OPTIONS",
  "TRACE",
  "CONNECT",
  "get",
  "FOO",
  "G ET",
  "GET\0",
  "",
  "X".repeat(300),
  "PROPFIND",
  "M-SEARCH",
  "PRI",
];

const REST_PATHS = [
  "/v1",
  "/v1/",
  "/v1/info",
  "/v1/rating",
  "/v1/rating/modules",
  "/v1/rating/modules/hashmap",
  "/v1/rating/modules/noop",
  "/v1/rating/quote",
  "/v1/rating/reload_modules",
  `${HASHMAP}`,
  `${HASHMAP}/types`,
  `${HASHMAP}/services`,
  `${HASHMAP}/services/{id}`,
  `${HASHMAP}/services/{id}/fields`,
  `${HASHMAP}/fields`,
  `${HASHMAP}/fields/{id}`,
  `${HASHMAP}/mappings`,
  `${HASHMAP}/mappings/{id}`,
  `${HASHMAP}/mappings/group`,
  `${HASHMAP}/thresholds`,
  `${HASHMAP}/thresholds/{id}`,
  `${HASHMAP}/groups`,
  `${HASHMAP}/groups/{id}`,
  `${HASHMAP}/groups/mappings`,
  `${HASHMAP}/warnings`,
  `${PYSCRIPTS}/scripts`,
  `${PYSCRIPTS}/scripts/{id}`,
  "/v1/openapi.json",
  "/v2/summary",
];
const OTHER_PATHS = [
  "/",
  "/index.html",
  "/hashmap/services",
  "/pyscripts/new",
  "/assets/nope.js",
  "/docs",
  "/docs/",
  "/docs/assets/swagger-ui.css",
  "/healthz",
  "/trpc/hashmap.services.list",
  "/trpc/nope",
  "/trpc/",
  "/auth/session",
  "/auth/login",
  "/auth/nope",
  "/.env",
  "/favicon.ico",
];
const QUERIES = [
  "",
  "",
  "?service_id={id}",
  "?service_id=a&service_id=b",
  "?limit=-1",
  "?%zz=1",
  "?a=%00",
  "?input=%7B",
  "?batch=1&input=%7B%7D",
  `?q=${"x".repeat(4000)}`,
  "?=&&=",
];

function mangle(random: Random, target: string): string {
  switch (random.int(14)) {
    case 0:
      return `/${target}`;
    case 1:
      return target.replace(/\//g, "//");
    case 2:
      return `${target}/../..${target}`;
    case 3:
      return `${target}/%2e%2e/%2E%2e/etc/passwd`;
    case 4:
      return `${target}%00`;
    case 5:
      return `${target}/\u00e9\u4e2d\ud83d\ude00`;
    case 6:
      return `${target}/${"a".repeat(random.pick([2_000, 9_000, 70_000]))}`;
    case 7:
      return `http://elsewhere.example${target}`;
    case 8:
      return `http://fuzz.test${target}`;
    case 9:
      return random.pick(["*", "", "%", "a", "//", "///", "/%", "/%zz", "\\v1\\rating"]);
    case 10:
      return target.toUpperCase();
    case 11:
      return `${target}/`;
    default:
      return target;
  }
}

function jsonBody(random: Random): string {
  const unknown = `"fuzz_${random.int(1e6)}": 1`;
  switch (random.int(16)) {
    case 0:
      return "{nope";
    case 1:
      return '{"name": "a", "name": "a"}';
    case 2:
      return '{"name": "a", "name": "b"}';
    case 3:
      return `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
    case 4:
      return `${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`;
    case 5:
      return `{"cost": 1e999999, ${unknown}}`;
    case 6:
      return `{"cost": ${"9".repeat(5_000)}, "level": -0.${"0".repeat(400)}1, ${unknown}}`;
    case 7:
      return `{"name": "\\ud800", ${unknown}}`;
    case 8:
      return `{"\\udfff": "x"}`;
    case 9:
      return `{"name": "${"\u00e9".repeat(100)}", "service_id": null, ${unknown}}`;
    case 10:
      return '{"service_id": {"$ne": null}, "limit": [1, 2], "__proto__": {"x": 1}}';
    case 11:
      return `[${'{"a":1},'.repeat(1_000)}{"a":1}]`;
    case 12:
      return `{"a": 1}{"b": 2}`;
    case 13:
      return '"\\u0000"';
    case 14:
      return `{"name": "a", ${unknown}, "name": "a"}`;
    default:
      return `{${unknown}, "filler": "${"x".repeat(random.pick([10, 2_000, 200_000]))}"}`;
  }
}

const CONTENT_TYPES = [
  "application/json",
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/jsonx",
  "\u00ff/\u00fe",
  undefined,
];

interface FuzzRequest {
  bytes: Buffer;
  method: string;
  target: string;
  /** A target that starts with /trpc: answered in tRPC's error shape, not CloudKitty's. */
  rpc: boolean;
}

function request(random: Random, ids: string[]): FuzzRequest {
  const method = random.chance(0.15) ? random.pick(ODD_METHODS) : random.pick(METHODS);
  const base = random.chance(0.7) ? random.pick(REST_PATHS) : random.pick(OTHER_PATHS);
  // Real ids only where nothing can change; a write gets an id that names nothing.
  const readOnly = method === "GET" || method === "HEAD";
  const fill = () => (readOnly && random.chance(0.5) ? random.pick(ids) : random.uuid());
  let target = mangle(random, `${base}${random.pick(QUERIES)}`).replace(/\{id\}/g, fill);
  if (method === "CONNECT" && random.chance(0.5)) target = "example.com:443";
  const headers: string[] = [];
  if (!random.chance(0.05)) headers.push(`Host: ${random.chance(0.95) ? "fuzz.test" : "a b"}`);
  headers.push(`Connection: ${random.chance(0.8) ? "close" : "keep-alive"}`);
  let body = Buffer.alloc(0);
  if (method !== "CONNECT" && random.chance(0.6)) {
    // A GET's body on the large list: the answer is long and must not be cut off.
    if (method === "GET" && random.chance(0.2)) target = `${HASHMAP}/mappings`;
    body = random.chance(0.1)
      ? Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x7b])
      : Buffer.from(jsonBody(random), "utf8");
    const type = random.pick(CONTENT_TYPES);
    if (type !== undefined) headers.push(`Content-Type: ${type}`);
  }
  let framed = body;
  switch (random.int(10)) {
    case 0: {
      headers.push("Transfer-Encoding: chunked");
      framed = Buffer.concat([
        Buffer.from(`${body.length.toString(16)}\r\n`),
        body,
        Buffer.from("\r\n0\r\n\r\n"),
      ]);
      break;
    }
    case 1:
      headers.push("Transfer-Encoding: chunked");
      framed = Buffer.from(random.pick(["zz\r\nhello\r\n", "5\r\nabc\r\n0\r\n\r\n", "-1\r\n\r\n"]));
      break;
    case 2:
      headers.push(`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`);
      break;
    case 3:
      headers.push(`Content-Length: ${body.length}`, "Transfer-Encoding: chunked");
      break;
    case 4:
      // Fewer bytes announced than sent: the rest reads as a second (garbage) request.
      headers.push(`Content-Length: ${Math.max(0, body.length - 3)}`);
      break;
    case 5:
      headers.push(
        random.pick(["Content-Length: -1", "Content-Length: 1e3", "Content-Length: 0x10"]),
      );
      break;
    case 6:
      headers.push(
        random.pick([
          `X-Long: ${"h".repeat(20_000)}`,
          "Bad Header: x",
          "X-Null: a\0b",
          "X-Fold: a\r\n folded",
          `X-Many: ${"a,".repeat(1_000)}`,
          "Expect: 100-continue",
          "X-Auth-Token: not-a-token",
          "Cookie: ratecard_session=nope",
        ]),
        `Content-Length: ${body.length}`,
      );
      break;
    default:
      if (body.length > 0 || random.chance(0.3)) headers.push(`Content-Length: ${body.length}`);
  }
  const version = random.chance(0.95)
    ? "HTTP/1.1"
    : random.pick(["HTTP/1.0", "HTTP/2.0", "HTTP/9"]);
  const head = `${method} ${target} ${version}\r\n${headers.join("\r\n")}\r\n\r\n`;
  return {
    bytes: Buffer.concat([Buffer.from(head, "utf8"), framed]),
    method,
    target,
    rpc: /^(?:http:\/\/fuzz\.test)?\/trpc/i.test(target),
  };
}

interface Answer {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
}

/** Reads one HTTP/1.1 answer off the socket; rejects if the connection ends before it is whole. */
function exchange(port: number, fuzz: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (error: Error | undefined, answer?: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(answer!);
    };
    const timer = setTimeout(() => finish(new Error("no complete answer within 10 s")), 10_000);
    const tryParse = (ended: boolean): Answer | undefined => {
      const end = received.indexOf("\r\n\r\n");
      if (end < 0) return undefined;
      const lines = received.subarray(0, end).toString("latin1").split("\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3}) /.exec(lines[0] ?? "")?.[1]);
      if (!status) throw new Error(`not an HTTP answer: ${JSON.stringify(lines[0])}`);
      const headers = new Map<string, string>();
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(":");
        headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      const rest = received.subarray(end + 4);
      if (status === 100) {
        received = rest;
        return tryParse(ended);
      }
      if (fuzz.method === "HEAD" || status === 204 || status === 304)
        return { status, headers, body: Buffer.alloc(0) };
      const length = headers.get("content-length");
      if (length !== undefined) {
        return rest.length >= Number(length)
          ? { status, headers, body: rest.subarray(0, Number(length)) }
          : undefined;
      }
      if (headers.get("transfer-encoding") === "chunked") {
        const chunks: Buffer[] = [];
        let offset = 0;
        for (;;) {
          const lineEnd = rest.indexOf("\r\n", offset);
          if (lineEnd < 0) return undefined;
          const size = parseInt(rest.subarray(offset, lineEnd).toString("latin1"), 16);
          if (rest.length < lineEnd + 2 + size + 2) return undefined;
          if (size === 0) return { status, headers, body: Buffer.concat(chunks) };
          chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
          offset = lineEnd + 2 + size + 2;
        }
      }
      return ended ? { status, headers, body: rest } : undefined;
    };
    const check = (ended: boolean) => {
      try {
        const answer = tryParse(ended);
        if (answer) finish(undefined, answer);
        else if (ended)
          finish(new Error(`connection ended mid-answer after ${received.length} bytes`));
      } catch (error) {
        finish(error as Error);
      }
    };
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      check(false);
    });
    socket.on("end", () => check(true));
    socket.on("close", () => check(true));
    socket.on("error", (error) => {
      if (!settled) check(true);
      if (!settled) finish(error);
    });
    // The server may answer and close before it has all the bytes: that is its right, as long
    // as the answer arrives.
    socket.write(fuzz.bytes, () => undefined);
  });
}

function describeRequest(fuzz: FuzzRequest): string {
  const text = fuzz.bytes.toString("latin1");
  return JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}… (${text.length} bytes)` : text);
}

describe("fuzzing the HTTP front", () => {
  let server: TestServer;
  let api: Client;
  let ids: string[];

  beforeAll(async () => {
    server = await startServer({
      env: { AUTH_STRATEGY: "noauth", BODY_LIMIT_BYTES: String(BODY_LIMIT), LOG_LEVEL: "error" },
    });
    api = createClient(server.baseUrl);
    const seed = seeder(api);
    const { serviceId, fieldId } = await seed.parents();
    const group = await seed.group();
    const mappings = [];
    for (let index = 0; index < LARGE_LIST; index++) {
      mappings.push(
        await seed.mapping({
          field_id: fieldId,
          value: `flavor-${index}`,
          group_id: group.group_id,
        }),
      );
    }
    ids = [serviceId, fieldId, group.group_id as string, mappings[0].mapping_id as string];
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it(`answers ${REQUESTS} bad requests (seed ${SEED}) completely, below 500, and changes nothing`, async () => {
    const before = await snapshotHashmap(api);
    const modulesBefore = (await api.get("/v1/rating/modules")).body;
    const random = seededRandom(SEED);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    const worker = async () => {
      while (sent < REQUESTS && failures.length < 10) {
        sent++;
        const fuzz = request(random, ids);
        try {
          const answer = await exchange(server.port, fuzz);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (answer.status >= 500)
            throw new Error(`status ${answer.status}: ${answer.body.toString("utf8")}`);
          const json = answer.headers.get("content-type")?.startsWith("application/json");
          if (answer.status >= 400 && json && !fuzz.rpc && fuzz.method !== "HEAD") {
            const fault = JSON.parse(answer.body.toString("utf8")) as Record<string, unknown>;
            if (
              fault.faultcode !== "Client" ||
              typeof fault.faultstring !== "string" ||
              fault.debuginfo !== null ||
              Object.keys(fault).length !== 3
            )
              throw new Error(`not a fault: ${answer.body.toString("utf8")}`);
          }
        } catch (error) {
          failures.push(`${(error as Error).message}\n  request: ${describeRequest(fuzz)}`);
        }
        if (server.process.exitCode !== null) failures.push("the server exited");
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `fuzz: ${sent} requests in ${seconds.toFixed(1)} s (seed ${SEED}); statuses`,
      Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
    );
    const serverErrors = server
      .output()
      .split("\n")
      .filter((line) => /"level":(50|60)/.test(line));
    expect(
      failures,
      `seed ${SEED}; server errors:\n${serverErrors.join("\n").slice(0, 4000)}`,
    ).toEqual([]);
    expect(server.process.exitCode).toBeNull();
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    expect(await snapshotHashmap(api)).toEqual(before);
    expect((await api.get("/v1/rating/modules")).body).toEqual(modulesBefore);
    expect((await api.get(`${PYSCRIPTS}/scripts`)).body).toEqual({ scripts: [] });
    // Nothing reached the error log: no request failed inside the server.
    expect(server.output()).not.toMatch(/"level":(50|60)/);
  }, 180_000);

  it("serves the console's page on each of its routes, and nothing else", async () => {
    const router = fs.readFileSync(
      path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../web/src/router.tsx"),
      "utf8",
    );
    const routes = [...router.matchAll(/path: "([^"]+)"/g)].map((match) =>
      match[1]!.replace(/\$\w+/g, "some-id"),
    );
    expect(routes.length).toBeGreaterThan(5);
    for (const route of routes) {
      const page = await fetch(`${server.baseUrl}${route}`);
      expect(page.status, route).toBe(200);
      expect(page.headers.get("content-type"), route).toMatch(/^text\/html/);
      const head = await fetch(`${server.baseUrl}${route}`, { method: "HEAD" });
      expect(head.status, route).toBe(200);
      const post = await fetch(`${server.baseUrl}${route}`, { method: "POST", body: "x" });
      expect(post.status, route).toBe(405);
      expect(post.headers.get("allow")).toBe("GET, HEAD");
    }
    for (const stray of [
      "/nowhere",
      "/hashmap//services",
      "/trpc",
      "/auth",
      "/assets/nope.js",
      "/.env",
    ]) {
      const answer = await fetch(`${server.baseUrl}${stray}`);
      expect(answer.status, stray).toBe(404);
      expect(await answer.json()).toMatchObject({ faultcode: "Client" });
    }
  });
});
