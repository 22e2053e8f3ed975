import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logEntries, startServer, type TestServer } from "./support/server.js";

// The access log as an operator reads it: one JSON line per request on standard output, naming
// the request id the answer carried, never a token. Lines are written in batches (src/log.ts), so
// the test waits for them, and lines still held when the server stops are written at exit.

const TOKEN = "a-token-that-must-never-be-logged-7f3a9c";
const TYPES = "/v1/rating/module_config/hashmap/types";

interface AccessLine {
  level: number;
  msg: string;
  req: { id: string; method: string; url: string };
  res: { status: number };
  responseTime: number;
}

/** The access lines of one request (there should be exactly one). */
function linesOf(server: TestServer, requestId: string): AccessLine[] {
  return logEntries(server).filter(
    (line) => (line.req as { id?: unknown } | undefined)?.id === requestId,
  ) as unknown as AccessLine[];
}

function lineOf(server: TestServer, requestId: string): AccessLine | undefined {
  return linesOf(server, requestId)[0];
}

async function waitForLine(server: TestServer, requestId: string): Promise<AccessLine> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const line = lineOf(server, requestId);
    if (line) return line;
    if (Date.now() > deadline)
      throw new Error(`no access line for ${requestId}:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function get(server: TestServer, path: string): Promise<Response> {
  return fetch(`${server.baseUrl}${path}`, { headers: { "X-Auth-Token": TOKEN } });
}

describe("the access log", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ env: { AUTH_STRATEGY: "noauth" } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it("writes one info line per answered request, with the id the answer carried", async () => {
    const response = await get(server, TYPES);
    expect(response.status).toBe(200);
    const id = response.headers.get("x-openstack-request-id");
    expect(id).toMatch(/^req-[0-9a-f-]{36}$/);
    const line = await waitForLine(server, id!);
    expect(line).toMatchObject({
      level: 30,
      msg: "request completed",
      req: { id, method: "GET", url: TYPES },
      res: { status: 200 },
    });
    expect(typeof line.responseTime).toBe("number");
    expect(linesOf(server, id!)).toHaveLength(1);
  });

  it("logs a client error at warn, and never the token", async () => {
    const response = await get(server, "/v1/rating/module_config/hashmap/mappings/no-such-mapping");
    expect(response.status).toBe(404);
    const line = await waitForLine(server, response.headers.get("x-openstack-request-id")!);
    expect(line).toMatchObject({ level: 40, res: { status: 404 } });
    expect(server.output()).not.toContain(TOKEN);
  });
});

describe("the log at shutdown", () => {
  it("writes the lines it still holds before the process exits", async () => {
    const server = await startServer({ env: { AUTH_STRATEGY: "noauth" } });
    const response = await get(server, TYPES);
    const id = response.headers.get("x-openstack-request-id")!;
    // Stopped at once: the line may still be in the destination's buffer.
    expect(await server.stop()).toBe(0);
    expect(lineOf(server, id)).toMatchObject({ msg: "request completed", res: { status: 200 } });
    expect(logEntries(server).at(-1)).toMatchObject({ msg: "stopped" });
  });
});
