import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type ApiResponse, type Client } from "./support/client.js";
import { referenceCloudKitty } from "./support/cloudkitty.js";
import { isPostgres, queryDatabase } from "./support/database.js";
import { seeder } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";
import { duplicatesIn, readCloudKitty, registerTarget, TARGETS } from "./support/target-bridge.js";

// The apply lease (docs/cloudkitty-targets.md, "Apply lock"): two Ratecard instances on one
// database (one SQLite file, or one PostgreSQL database with RATECARD_TEST_DATABASE=postgresql)
// apply the same plan to a real CloudKitty 17 at the same moment: one apply runs, the other is
// refused with a 409 naming the instance that holds the target, and CloudKitty ends with every rule
// once. A holder killed with SIGKILL mid-apply keeps the target only until its lease lapses. The
// target is reached through a gate that can hold CloudKitty's writes back, so that an apply lasts
// exactly as long as the test needs, however fast CloudKitty answers.

const cloudKitty = referenceCloudKitty({
  dir: process.env.CK_LOCK_TEST_DIR ?? "/tmp/ck-server-target-apply-lock",
  port: Number(process.env.CK_LOCK_TEST_PORT ?? 8944),
});

/** Short leases, so that waiting for one to lapse takes seconds (renewed every quarter), long
 * enough that a loaded CI machine renews them in time. */
const LEASE_SECONDS = 5;
const KILLED_LEASE_SECONDS = 8;
const MAPPINGS = 40;
/** Applies of one plan sent at once, alternately through each instance. */
const PARALLEL = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface WriteGate {
  url: string;
  /** From now on, lets `count` writes through and holds back the ones after them. */
  holdAfter(count: number): void;
  /** Sends the writes held back and holds no more. */
  open(): void;
  /** Writes held back now. */
  held(): number;
  /** Writes sent on to CloudKitty since the last holdAfter. */
  sent(): number;
  close(): Promise<void>;
}

/**
 * A pass-through proxy in front of CloudKitty that can hold writes (any method but GET) back. A held
 * write whose client went away (a killed instance) is never sent.
 */
async function startWriteGate(upstream: string): Promise<WriteGate> {
  const target = new URL(upstream);
  let passing = Number.POSITIVE_INFINITY;
  let writes = 0;
  let sent = 0;
  const held = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const forward = () => {
        if (req.method !== "GET") sent += 1;
        const out = http.request(
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: req.headers,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        out.on("error", () => res.destroy());
        out.end(Buffer.concat(chunks));
      };
      if (req.method === "GET" || ++writes <= passing) return forward();
      const send = () => {
        held.delete(send);
        forward();
      };
      held.add(send);
      res.on("close", () => held.delete(send));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    holdAfter(count) {
      writes = 0;
      sent = 0;
      passing = count;
    },
    open() {
      passing = Number.POSITIVE_INFINITY;
      for (const send of [...held]) send();
    },
    held: () => held.size,
    sent: () => sent,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function until(what: string, condition: () => boolean) {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`waited a minute for ${what}`);
    await sleep(20);
  }
}

describe("the apply lease across two instances on one database", () => {
  let a: TestServer;
  let b: TestServer;
  let c: TestServer | undefined;
  let gate: WriteGate;
  let apiA: Client;
  let apiB: Client;
  let targetId: string;
  let computeMappings: string[];
  let env: Record<string, string>;

  /** A write into the shared database, as another instance would make it. */
  const writeDatabase = (sql: string) =>
    queryDatabase(
      a.databasePath,
      isPostgres(a.databasePath) ? sql : `PRAGMA busy_timeout = 10000; ${sql}`,
    );

  /** The lease as the database holds it (null: free). */
  const lease = () => {
    const holder = queryDatabase(
      a.databasePath,
      `SELECT coalesce(apply_lock_holder, '') FROM cloudkitty_targets WHERE id = '${targetId}'`,
    );
    const until = isPostgres(a.databasePath)
      ? Number(
          queryDatabase(
            a.databasePath,
            `SELECT coalesce(floor(extract(epoch FROM apply_lock_until) * 1000)::text, '') ` +
              `FROM cloudkitty_targets WHERE id = '${targetId}'`,
          ),
        )
      : Date.parse(
          queryDatabase(
            a.databasePath,
            `SELECT coalesce(apply_lock_until, '') FROM cloudkitty_targets WHERE id = '${targetId}'`,
          ),
        );
    return holder ? { holder, until } : null;
  };

  const plan = async (api: Client) => {
    const answer = await api.post(`${TARGETS}/${targetId}/plan`, {});
    expect(answer.status, answer.text).toBe(200);
    return answer.body as { plan_id: string; counts: Record<string, number> };
  };
  const apply = (api: Client, planId: string) =>
    api.post(`${TARGETS}/${targetId}/apply`, { plan_id: planId });

  const expectLeaseRefusal = (answer: ApiResponse, holder: TestServer) => {
    expect(answer.status, answer.text).toBe(409);
    const fault = answer.body as { faultcode: string; faultstring: string; debuginfo: unknown };
    expect(Object.keys(fault).sort()).toEqual(["debuginfo", "faultcode", "faultstring"]);
    expect(fault.faultcode).toBe("Client");
    expect(fault.faultstring).toMatch(
      new RegExp(
        `^Target lock-target: an apply is under way since \\d{4}-\\d\\d-\\d\\dT\\S+Z ` +
          `\\(plan [0-9a-f-]{36}, by .+, on instance \\S+ pid ${holder.process.pid}\\)\\. ` +
          `Its lease is renewed while it runs and lapses at \\S+Z if that instance stops\\. ` +
          `Wait for it to finish, then plan again\\.$`,
      ),
    );
  };

  /** Mappings on a new field of a new service, created in Ratecard; answers their ids. */
  const seedMappings = async (api: Client, service: string, count: number) => {
    const seed = seeder(api);
    const { service_id } = await seed.service(service);
    const { field_id } = await seed.field(service_id, "flavor_name");
    const ids: string[] = [];
    for (let i = 0; i < count; i += 20) {
      const created = await Promise.all(
        Array.from({ length: Math.min(20, count - i) }, (_, j) =>
          seed.mapping({ field_id, value: `m${i + j}`, cost: String((i + j + 1) / 64) }),
        ),
      );
      ids.push(...created.map((mapping: { mapping_id: string }) => mapping.mapping_id));
    }
    return ids;
  };

  const expectCloudKittyHolds = async (mappings: number) => {
    const state = await readCloudKitty(cloudKitty.url);
    expect(duplicatesIn(state)).toEqual([]);
    expect(state.rules.filter((rule) => rule.kind === "mapping")).toHaveLength(mappings);
  };

  beforeAll(async () => {
    await cloudKitty.start();
    gate = await startWriteGate(cloudKitty.url);
    env = {
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-target-apply-lock-")),
      RATECARD_SECRET_KEY: randomBytes(32).toString("base64"),
      TARGET_APPLY_LEASE_SECONDS: String(LEASE_SECONDS),
    };
    a = await startServer({ env });
    b = await startServer({ env, databasePath: a.databasePath });
    apiA = createClient(a.baseUrl);
    apiB = createClient(b.baseUrl);
    targetId = await registerTarget(apiA, gate.url, { name: "lock-target" });
    computeMappings = await seedMappings(apiA, "compute", MAPPINGS);
  }, 16 * 60_000);

  afterAll(async () => {
    const alive = [a, b, c].filter(
      (server): server is TestServer =>
        server?.process.exitCode === null && server.process.signalCode === null,
    );
    await Promise.all(alive.map((server) => server.stop()));
    await gate?.close();
    await cloudKitty.stop();
  }, 120_000);

  it("of simultaneous applies of one plan through both instances one runs; the others get a 409 naming its holder", async () => {
    const before = (await apiA.get(`${TARGETS}/${targetId}`)).body.updated_at as string;
    const { plan_id } = await plan(apiA);
    // The apply that runs stops after its service, its field and one mapping, until let go.
    gate.holdAfter(3);
    const answers = Array.from({ length: PARALLEL }, (_, i) =>
      apply(i % 2 === 0 ? apiA : apiB, plan_id),
    );
    let settled = 0;
    for (const answer of answers)
      void answer.then(() => {
        settled += 1;
      });
    await until("the apply's held write", () => gate.held() > 0);
    const taken = lease();
    const winner = [a, b].find((server) => taken?.holder.endsWith(` pid ${server.process.pid}`))!;
    expect(winner, `held by ${taken?.holder}`).toBeDefined();
    // The target shows the apply under way, through either instance, but never the lease's token.
    const token = queryDatabase(
      a.databasePath,
      `SELECT apply_lock_token FROM cloudkitty_targets WHERE id = '${targetId}'`,
    );
    const shown = await apiB.get(`${TARGETS}/${targetId}`);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.apply_in_progress).toEqual({
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT\S+Z$/),
      until: expect.stringMatching(/^\d{4}-\d\d-\d\dT\S+Z$/),
      actor: expect.any(String),
      plan_id,
      instance: taken!.holder,
    });
    // Its lease's end as the database holds it, or a later one (renewed meanwhile).
    expect(Date.parse(shown.body.apply_in_progress.until)).toBeGreaterThanOrEqual(taken!.until);
    expect(shown.text).not.toContain(token);
    const listed = await apiA.get(TARGETS);
    // The same apply, its lease's end renewed between the two reads or not.
    const inList = listed.body.targets.find(
      (t: { target_id: string }) => t.target_id === targetId,
    ).apply_in_progress;
    expect(inList).toEqual({ ...shown.body.apply_in_progress, until: expect.any(String) });
    expect(Date.parse(inList.until)).toBeGreaterThanOrEqual(
      Date.parse(shown.body.apply_in_progress.until),
    );
    await until("every refusal", () => settled === PARALLEL - 1);
    const refused: ApiResponse<any>[] = [];
    let running: Promise<ApiResponse<any>> | undefined;
    for (const answer of answers) {
      const first = await Promise.race([answer, sleep(100).then(() => null)]);
      if (first) refused.push(first);
      else running = answer;
    }
    expect(refused).toHaveLength(PARALLEL - 1);
    for (const answer of refused) expectLeaseRefusal(answer, winner);

    // Renewed while the apply runs: past the first lease's end, still held, still refused.
    await sleep(Math.max(0, taken!.until - Date.now()) + 500);
    expect(settled).toBe(PARALLEL - 1);
    expect(lease()).toEqual({ holder: taken!.holder, until: expect.any(Number) });
    expect(lease()!.until).toBeGreaterThan(taken!.until);
    expectLeaseRefusal(await apply(winner === a ? apiB : apiA, plan_id), winner);

    gate.open();
    const won = await running!;
    expect(won.status, won.text).toBe(200);
    expect(won.body.status).toBe("ok");
    expect(won.body.counts.done).toBe(MAPPINGS + 2);
    expect(lease()).toBeNull();
    await expectCloudKittyHolds(MAPPINGS);
    // The lease is not a change of the target's settings.
    const after = (await apiB.get(`${TARGETS}/${targetId}`)).body;
    expect(after.updated_at).toBe(before);
    expect(after.apply_in_progress).toBeNull();

    // Each refusal is in the run history with the holding it met.
    const runs = await apiB.get(`${TARGETS}/${targetId}/runs`, { query: { kind: "apply" } });
    expect(runs.status, runs.text).toBe(200);
    const statuses = runs.body.runs.map((run: { status: string }) => run.status).sort();
    expect(statuses).toEqual(["ok", ...Array<string>(PARALLEL).fill("refused")]);
    for (const run of runs.body.runs.filter((r: { status: string }) => r.status === "refused")) {
      expect(run.plan_id).toBe(plan_id);
      expect(run.error).toMatch(/an apply is under way since/);
      expect(run.summary.apply_lock).toMatchObject({
        holder: taken!.holder,
        plan_id,
      });
    }
  }, 180_000);

  it("lets a new plan and apply through either instance once the first apply finished", async () => {
    const put = await apiA.put(`${HASHMAP}/mappings/${computeMappings[0]}`, {
      value: "m0",
      cost: "42",
    });
    expect(put.status, put.text).toBeLessThan(400);

    const planned = await plan(apiB);
    expect(planned.counts.update).toBe(1);
    const applied = await apply(apiB, planned.plan_id);
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.status).toBe("ok");
    expect(lease()).toBeNull();
    expect((await plan(apiA)).counts).toMatchObject({ create: 0, update: 0, replace: 0 });
    await expectCloudKittyHolds(MAPPINGS);
  }, 180_000);

  it("keeps a SIGKILLed holder's target only until its lease lapses", async () => {
    c = await startServer({
      env: { ...env, TARGET_APPLY_LEASE_SECONDS: String(KILLED_LEASE_SECONDS) },
      databasePath: a.databasePath,
    });
    const apiC = createClient(c.baseUrl);
    await seedMappings(apiA, "volume", MAPPINGS);
    const { plan_id } = await plan(apiC);
    const idRows = () =>
      Number(
        queryDatabase(
          a.databasePath,
          `SELECT count(*) FROM cloudkitty_target_ids WHERE target_id = '${targetId}'`,
        ),
      );
    const before = idRows();
    // Killed once CloudKitty took a service, a field and 10 mappings of the apply's, in the middle.
    gate.holdAfter(12);
    const killed = apply(apiC, plan_id).catch((error: unknown) => error);
    await until("the apply's held write", () => gate.held() > 0);
    await until("the id map of the writes let through", () => idRows() === before + 12);
    c.process.kill("SIGKILL");
    await killed;
    const held = lease();
    expect(held?.holder).toMatch(new RegExp(` pid ${c.process.pid}$`));

    // Refused while the dead holder's lease runs, by either instance.
    expectLeaseRefusal(await apply(apiB, plan_id), c);
    expectLeaseRefusal(await apply(apiA, plan_id), c);
    expect(lease()).toEqual(held);

    // Once it lapsed the lease no longer refuses: that plan is refused only because CloudKitty
    // changed since (the killed apply's writes), and a new plan + apply converges.
    await sleep(Math.max(0, held!.until - Date.now()) + 200);
    gate.open();
    const stale = await apply(apiB, plan_id);
    expect(stale.status, stale.text).toBe(409);
    expect(stale.body.faultstring).toMatch(/changed since plan/);
    const planned = await plan(apiB);
    expect(planned.counts.create).toBeGreaterThan(0);
    expect(planned.counts.create).toBeLessThan(MAPPINGS);
    const applied = await apply(apiB, planned.plan_id);
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.status).toBe("ok");
    expect(lease()).toBeNull();
    expect((await plan(apiA)).counts).toMatchObject({ create: 0, update: 0, replace: 0 });
    await expectCloudKittyHolds(2 * MAPPINGS);
  }, 180_000);
  it("stops an apply whose lease was taken from it before its next CloudKitty write, as partial", async () => {
    await seedMappings(apiA, "network", MAPPINGS);
    const { plan_id } = await plan(apiA);
    // CloudKitty takes the service, the field and one mapping; the next writes (one per worker)
    // wait at the gate, in flight, while the lease is taken from the apply.
    gate.holdAfter(3);
    const running = apply(apiA, plan_id);
    await until("the apply's held writes", () => gate.held() > 0);
    await sleep(300);
    const inFlight = gate.held();
    expect(lease()?.holder).toMatch(new RegExp(` pid ${a.process.pid}$`));
    // What another instance does once the holding lapsed (its renewals failed for a lease): the
    // row now names it, under its own token.
    writeDatabase(
      `UPDATE cloudkitty_targets SET apply_lock_token = 'taken-by-the-test', ` +
        `apply_lock_holder = 'the test pid 1' WHERE id = '${targetId}'`,
    );
    // The holder's next renewal (every quarter of its 2 s lease) finds it gone.
    await sleep(1500);
    gate.open();
    const stopped = await running;
    expect(stopped.status, stopped.text).toBe(200);
    expect(stopped.body.status).toBe("partial");
    expect(stopped.body.error).toMatch(
      /^the apply lease was lost: the target's lease is held by instance the test pid 1 \(plan \S+, until \S+Z\)$/,
    );
    // The writes in flight finished; nothing was sent after them.
    expect(gate.sent()).toBe(3 + inFlight);
    expect(stopped.body.counts).toMatchObject({ done: 3 + inFlight, failed: 0 });
    expect(stopped.body.counts.not_run).toBe(MAPPINGS - 1 - inFlight);
    await expectCloudKittyHolds(2 * MAPPINGS + 1 + inFlight);
    // Its release left the other holding alone.
    expect(lease()?.holder).toBe("the test pid 1");
    const runs = await apiB.get(`${TARGETS}/${targetId}/runs`, { query: { kind: "apply" } });
    const run = runs.body.runs.find((r: { run_id: string }) => r.run_id === stopped.body.run_id);
    expect(run).toMatchObject({ status: "partial", error: stopped.body.error });

    // The other apply is over: plan and apply again converge.
    writeDatabase(
      `UPDATE cloudkitty_targets SET apply_lock_token = NULL, apply_lock_holder = NULL, ` +
        `apply_lock_actor = NULL, apply_lock_plan_id = NULL, apply_lock_since = NULL, ` +
        `apply_lock_until = NULL WHERE id = '${targetId}'`,
    );
    const planned = await plan(apiB);
    expect(planned.counts.create).toBe(MAPPINGS - 1 - inFlight);
    const applied = await apply(apiB, planned.plan_id);
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.status).toBe("ok");
    expect((await plan(apiA)).counts).toMatchObject({ create: 0, update: 0, replace: 0 });
    await expectCloudKittyHolds(3 * MAPPINGS);
  }, 180_000);
});
