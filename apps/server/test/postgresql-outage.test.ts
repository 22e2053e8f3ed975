import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { rpc, signIn } from "./support/auth.js";
import { createClient, HASHMAP, type ApiResponse } from "./support/client.js";
import { startServer, type TestServer } from "./support/server.js";

// PostgreSQL stopped under load and started again. Only with RATECARD_TEST_DATABASE=postgresql (the
// CI's second run of this suite): SQLite is a file in the process, with no server to stop, and its
// failures (busy, I/O, full disk) are classified by the same isDatabaseUnavailable. The test
// starts a cluster of its own, as the suite's shared one serves the files running beside it.

const script = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../scripts/postgres-for-tests.sh",
);
const UNAVAILABLE = "The database is unavailable; retry later";
/** DATABASE_CONNECT_TIMEOUT_MS for the server: no request may wait much longer. */
const CONNECT_TIMEOUT_MS = 2_000;
const ADMIN_PASSWORD = "outage admin password";

/** The cluster's pg_ctl, run as the user that owns it (`postgres` when the tests run as root). */
function pgCtl(args: string[]): void {
  const bin = fs
    .readdirSync("/usr/lib/postgresql")
    .sort((a, b) => Number(a) - Number(b))
    .map((version) => `/usr/lib/postgresql/${version}/bin/pg_ctl`)
    .at(-1)!;
  const command = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--", bin] : [bin];
  execFileSync(command[0]!, [...command.slice(1), ...args], { stdio: "ignore" });
}

interface Outcome {
  status: number;
  ms: number;
  body: unknown;
}

describe.runIf(process.env.RATECARD_TEST_DATABASE === "postgresql")(
  "PostgreSQL stopped and started under load",
  () => {
    let clusterDir: string;
    let clusterUrl: string;
    let server: TestServer;
    /** A second instance on the same database, without authentication: its calls reach the router. */
    let open: TestServer;

    const startCluster = () => {
      const port = new URL(clusterUrl).port;
      pgCtl([
        "-D",
        `${clusterDir}/data`,
        "-l",
        `${clusterDir}/postgres.log`,
        "-w",
        "start",
        "-o",
        `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${clusterDir}`,
      ]);
    };
    // Fast: sessions are ended (57P01) and new connections refused until the restart.
    const stopCluster = () => pgCtl(["-D", `${clusterDir}/data`, "-m", "fast", "-w", "stop"]);

    beforeAll(async () => {
      const exports = execFileSync("bash", [script, "start"]).toString();
      clusterUrl = /RATECARD_TEST_POSTGRES_URL=(\S+)/.exec(exports)![1]!;
      clusterDir = /RATECARD_TEST_POSTGRES_DIR=(\S+)/.exec(exports)![1]!;
      execFileSync("psql", ["-X", "-q", "-d", clusterUrl, "-c", 'CREATE DATABASE "outage"']);
      const url = new URL(clusterUrl);
      url.pathname = "/outage";
      server = await startServer({
        databasePath: url.toString(),
        env: {
          AUTH_STRATEGY: "local",
          RATECARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
          DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        },
      });
      open = await startServer({
        databasePath: url.toString(),
        env: { DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS) },
      });
    });
    afterAll(async () => {
      await Promise.all([server?.stop(), open?.stop()]);
      if (clusterDir) execFileSync("bash", [script, "stop", clusterDir], { stdio: "ignore" });
    });

    it("answers 503 faults while it is down, is not ready, and resumes by itself with every acknowledged write kept", async () => {
      const session = await signIn(server.baseUrl, { username: "admin", password: ADMIN_PASSWORD });
      const headers = { "X-Auth-Token": session.token };
      const api = createClient(server.baseUrl);
      const ready = async () => (await fetch(`${server.baseUrl}/readyz`)).status;
      expect(await ready()).toBe(200);

      const outcomes: Outcome[] = [];
      const acknowledged: string[] = [];
      const timed = async (call: () => Promise<ApiResponse>) => {
        const started = Date.now();
        const answer = await call();
        outcomes.push({ status: answer.status, ms: Date.now() - started, body: answer.body });
        return answer;
      };
      let load = true;
      let next = 0;
      const writer = async () => {
        while (load) {
          const name = `service-${next++}`;
          const created = await timed(() =>
            api.post(`${HASHMAP}/services/`, { name }, { headers }),
          );
          if (created.status === 201) acknowledged.push(name);
          await timed(() => api.get(`${HASHMAP}/services`, { headers }));
        }
      };
      const writers = [writer(), writer(), writer(), writer()];
      // A failed expectation must not leave the writers running into the servers' shutdown.
      const stopLoad = async () => {
        load = false;
        await Promise.allSettled(writers);
      };
      onTestFinished(stopLoad);

      await new Promise((resolve) => setTimeout(resolve, 1_000));
      stopCluster();
      const downFrom = outcomes.length;
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await ready()).toBe(503);
      // Over REST and over RPC (mutations: reads may come from the cache).
      const overRest = await createClient(open.baseUrl).post(`${HASHMAP}/services/`, {
        name: "rest-during-outage",
      });
      expect(overRest.status).toBe(503);
      expect(overRest.body).toEqual({
        faultcode: "Server",
        faultstring: UNAVAILABLE,
        debuginfo: null,
      });
      const overRpc = await rpc(
        open.baseUrl,
        "hashmap.services.create",
        { name: "rpc-during-outage" },
        { type: "mutation" },
      );
      expect(overRpc.status).toBe(503);
      // The router's SERVICE_UNAVAILABLE, or the fault of the catch-up before it (app.ts).
      expect(overRpc.body.error?.message ?? overRpc.body.faultstring).toBe(UNAVAILABLE);
      // A token the server has not seen: its verdict can not be known, which is not a 401.
      const unknownToken = await api.get(`${HASHMAP}/services`, {
        headers: { "X-Auth-Token": "rck_0000000000000000000000000000000000000000000" },
      });
      expect(unknownToken.status).toBe(503);
      const downUntil = outcomes.length;

      startCluster();
      const deadline = Date.now() + 30_000;
      while ((await ready()) !== 200) {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const upFrom = outcomes.length;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await stopLoad();

      // Never a 500, never a wait beyond the connect timeout (and the fault's own round trip).
      expect(outcomes.filter((o) => ![200, 201, 503].includes(o.status))).toEqual([]);
      expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(CONNECT_TIMEOUT_MS + 3_000);
      const down = outcomes.slice(downFrom, downUntil);
      expect(down.filter((o) => o.status === 503).length).toBeGreaterThan(0);
      for (const fault of outcomes.filter((o) => o.status === 503)) {
        expect(fault.body).toMatchObject({ faultcode: "Server" });
        expect((fault.body as { faultstring: string }).faultstring).toMatch(
          /The database is unavailable; retry later|cannot be reached/,
        );
      }
      // Service resumed by itself: everything after readiness came back succeeded.
      const after = outcomes.slice(upFrom);
      expect(after.length).toBeGreaterThan(0);
      expect(after.filter((o) => o.status === 503)).toEqual([]);

      // No acknowledged write lost.
      const listed = await api.get<{ services: { name: string }[] }>(`${HASHMAP}/services`, {
        headers,
      });
      const names = new Set(listed.body.services.map((s) => s.name));
      expect(acknowledged.filter((name) => !names.has(name))).toEqual([]);
      expect(acknowledged.length).toBeGreaterThan(0);
    });
  },
);
