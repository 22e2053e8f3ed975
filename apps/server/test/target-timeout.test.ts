import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "./support/client.js";
import { startServer } from "./support/server.js";

// CLOUDKITTY_REQUEST_TIMEOUT_SECONDS is the deadline of each request to a target's CloudKitty:
// against a CloudKitty that answers every request after 2.5 s, a plan with a 1 s deadline fails
// naming the request, the deadline and the setting; with the default (60 s) it waits for the
// answer (a 503 here, reported as such).

const TARGETS = "/v1/ratecard/targets";
const DELAY_MS = 2_500;

describe("CLOUDKITTY_REQUEST_TIMEOUT_SECONDS", () => {
  let slow: http.Server;
  let slowUrl: string;

  beforeAll(async () => {
    slow = http.createServer((request, response) => {
      request.resume();
      const timer = setTimeout(() => {
        response.writeHead(503, { "Content-Type": "application/json" });
        response.end(JSON.stringify({ faultcode: "Server", faultstring: "slow", debuginfo: null }));
      }, DELAY_MS);
      response.on("close", () => clearTimeout(timer));
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    slow.closeAllConnections();
    await new Promise((resolve) => slow.close(resolve));
  });

  async function planWith(env: Record<string, string>) {
    const server = await startServer({
      env: { DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-target-timeout-")), ...env },
    });
    try {
      const api = createClient(server.baseUrl);
      const created = await api.post(TARGETS, {
        name: "slow",
        mode: "managed",
        connection: { kind: "noauth", url: slowUrl },
      });
      expect(created.status, created.text).toBe(201);
      const started = Date.now();
      const plan = await api.post(`${TARGETS}/${created.body.target_id}/plan`, {});
      return { plan, elapsedMs: Date.now() - started };
    } finally {
      await server.stop();
    }
  }

  it("a lowered deadline ends the plan, saying which request and which setting", async () => {
    const { plan, elapsedMs } = await planWith({ CLOUDKITTY_REQUEST_TIMEOUT_SECONDS: "1" });
    expect(plan.status, plan.text).toBe(409);
    expect(plan.body.faultstring).toMatch(
      new RegExp(
        `^Reading target slow failed: GET ${slowUrl}/v1/\\S+: no answer in time ` +
          `\\(deadline 1 s per request; CLOUDKITTY_REQUEST_TIMEOUT_SECONDS raises it\\)$`,
      ),
    );
    expect(elapsedMs).toBeLessThan(DELAY_MS);
  }, 60_000);

  it("the default deadline waits for CloudKitty's slow answer", async () => {
    const { plan } = await planWith({});
    expect(plan.status, plan.text).toBe(409);
    expect(plan.body.faultstring).not.toContain("no answer in time");
    expect(plan.body.faultstring).toContain("503");
  }, 60_000);
});
