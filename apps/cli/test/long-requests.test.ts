import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A target's import, plan, drift and apply answer only when done, minutes later for 10,000
// mappings: the CLI sends them over node:http with no deadline (fetch's dispatcher would give up
// after 300 s). Against a stand-in Ratecard over real HTTP: a plan whose headers come late is
// waited for; a connection closed midway through the answer is an error, not a truncated answer.

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/main.js");
const TARGET = { target_id: "0b9c6a53-0000-4000-8000-000000000001", name: "slow" };
const PLAN = { plan_id: "p", counts: {}, operations: [] };

function ratecard(args: string[], url: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", RATECARD_URL: url }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end("");
  });
}

describe("long operations (stand-in Ratecard)", () => {
  let server: http.Server;
  let url: string;
  let cut = false;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      request.resume();
      if (request.method === "GET" && request.url === "/v1/ratecard/targets") {
        response.writeHead(200, { "Content-Type": "application/json" });
        response.end(JSON.stringify({ targets: [TARGET] }));
        return;
      }
      setTimeout(() => {
        const body = JSON.stringify(PLAN);
        response.writeHead(200, {
          "Content-Type": "application/json",
          "Content-Length": Buffer.byteLength(body),
        });
        if (!cut) return response.end(body);
        response.write(body.slice(0, 5));
        setTimeout(() => response.socket?.destroy(), 100);
      }, 2_000);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("waits for a plan answered late", async () => {
    cut = false;
    const run = await ratecard(["targets", "plan", "slow", "--json"], url);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(PLAN);
  }, 60_000);

  it("reports a connection closed midway through the answer", async () => {
    cut = true;
    const run = await ratecard(["targets", "plan", "slow", "--json"], url);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      `ratecard: The connection to Ratecard at ${url} closed before the whole answer arrived; ` +
        "the operation may have been carried out: look (`ratecard targets runs`, `ratecard export`) before retrying.\n",
    );
  }, 60_000);
});
