import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { migrateDatabase, openDatabase, type Database } from "@ratecard/db";
import { DomainError } from "../src/domain/errors.js";
import { ApplyLeaseLostError, withTargetApplyLease } from "../src/domain/target-lock.js";

// The apply lease on a real SQLite file, the instances told apart by their holder names. One
// connection: two better-sqlite3 connections in one process would block each other's commits
// (SQLite's busy wait is synchronous). The server's test/target-apply-lock.test.ts races real
// processes on one SQLite file or PostgreSQL database, over HTTP against CloudKitty.

let database: Database;
let targetId: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const lockColumns = () =>
  database.prisma.cloudKittyTarget.findUniqueOrThrow({
    where: { id: targetId },
    select: {
      applyLockToken: true,
      applyLockHolder: true,
      applyLockUntil: true,
      updatedAt: true,
    },
  });

/** A refusal: its DomainError, or the result when it was not refused. */
const refusal = (attempt: Promise<unknown>) =>
  attempt.then(
    (result) => ({ result }),
    (error: unknown) => error,
  );

beforeAll(async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-lock-")), "test.db");
  await migrateDatabase(`file:${file}`);
  database = await openDatabase({ url: `file:${file}` });
});
afterAll(async () => {
  await database?.close();
});
beforeEach(async () => {
  const target = await database.prisma.cloudKittyTarget.create({
    data: {
      name: `target-${Math.random().toString(36).slice(2)}`,
      mode: "managed",
      kind: "noauth",
      connection: JSON.stringify({ kind: "noauth", url: "http://127.0.0.1:1" }),
    },
  });
  targetId = target.id;
});

describe("withTargetApplyLease", () => {
  it("runs exactly one of many simultaneous applies; refuses the others, naming the holder", async () => {
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    let running = 0;
    const attempts = Array.from({ length: 20 }, (_, i) =>
      refusal(
        withTargetApplyLease(
          database.prisma,
          { targetId, planId: `plan-${i}`, actor: `user-${i}`, holder: `instance-${i % 2}` },
          async () => {
            running += 1;
            await gate;
            return i;
          },
        ),
      ),
    );
    await sleep(300);
    expect(running).toBe(1);
    finish();
    const outcomes = await Promise.all(attempts);
    const ran = outcomes.filter((o) => !(o instanceof DomainError));
    const refused = outcomes.filter((o): o is DomainError => o instanceof DomainError);
    expect(ran).toHaveLength(1);
    expect(refused).toHaveLength(19);
    const winner = (ran[0] as { result: number }).result;
    for (const error of refused) {
      expect(error.kind).toBe("conflict");
      expect(error.message).toMatch(/^Target target-\w+: an apply is under way since \S+Z /);
      expect(error.message).toContain(
        `(plan plan-${winner}, by user-${winner}, on instance instance-${winner % 2})`,
      );
    }
    expect((await lockColumns()).applyLockToken).toBeNull();
    const runs = await database.prisma.cloudKittyTargetRun.findMany({ where: { targetId } });
    expect(runs).toHaveLength(19);
    expect(new Set(runs.map((run) => run.status))).toEqual(new Set(["refused"]));
  });

  it("renews the lease while the apply runs and releases it when the apply throws", async () => {
    const before = await lockColumns();
    const apply = refusal(
      withTargetApplyLease(
        database.prisma,
        { targetId, planId: "plan-long", actor: null, leaseMs: 200 },
        async () => {
          await sleep(800);
          throw new Error("CloudKitty went away");
        },
      ),
    );
    await sleep(100);
    const taken = (await lockColumns()).applyLockUntil!;
    await sleep(400);
    // Past the first lease's end: renewed, so still refused.
    expect((await lockColumns()).applyLockUntil!.getTime()).toBeGreaterThan(taken.getTime());
    const meanwhile = await refusal(
      withTargetApplyLease(database.prisma, { targetId, planId: "plan-2", actor: null }, () =>
        Promise.resolve("ran"),
      ),
    );
    expect(meanwhile).toBeInstanceOf(DomainError);
    expect((meanwhile as DomainError).message).toContain("by an unnamed caller");
    expect(((await apply) as Error).message).toBe("CloudKitty went away");

    // Free again, and updated_at as it was: the lease is not a change of the target's settings.
    expect(await lockColumns()).toEqual(before);
    await expect(
      withTargetApplyLease(database.prisma, { targetId, planId: "plan-3", actor: null }, () =>
        Promise.resolve("ran"),
      ),
    ).resolves.toBe("ran");
  });

  it("refuses while a dead holder's lease runs, then takes it over", async () => {
    await database.prisma.cloudKittyTarget.update({
      where: { id: targetId },
      data: {
        applyLockToken: "a-holding-whose-process-died",
        applyLockHolder: "gone pid 1",
        applyLockActor: "admin",
        applyLockPlanId: "plan-dead",
        applyLockSince: new Date(),
        applyLockUntil: new Date(Date.now() + 400),
      },
    });
    const attempt = () =>
      refusal(
        withTargetApplyLease(database.prisma, { targetId, planId: "plan-new", actor: null }, () =>
          Promise.resolve("ran"),
        ),
      );
    const refused = await attempt();
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).message).toMatch(
      /\(plan plan-dead, by admin, on instance gone pid 1\)\. Its lease is renewed while it runs and lapses at \S+Z if that instance stops\./,
    );
    await sleep(450);
    expect(await attempt()).toEqual({ result: "ran" });
    expect((await lockColumns()).applyLockToken).toBeNull();
  });

  /** Resolves with the signal's reason once it is aborted (a minute at most). */
  const abortedWith = (signal: AbortSignal) =>
    new Promise<unknown>((resolve, reject) => {
      if (signal.aborted) return resolve(signal.reason);
      const timeout = setTimeout(() => reject(new Error("never aborted")), 60_000);
      signal.addEventListener("abort", () => {
        clearTimeout(timeout);
        resolve(signal.reason);
      });
    });

  it("tells the apply to stop when a renewal finds its lease taken by another apply", async () => {
    let signalled: AbortSignal | undefined;
    const reason = await withTargetApplyLease(
      database.prisma,
      { targetId, planId: "plan-slow", actor: null, leaseMs: 200, holder: "stalled" },
      async (signal) => {
        signalled = signal;
        expect(signal.aborted).toBe(false);
        // What another instance does once this holding lapsed: its own token, its own end.
        await database.prisma.cloudKittyTarget.update({
          where: { id: targetId },
          data: {
            applyLockToken: "another-instance",
            applyLockHolder: "other pid 2",
            applyLockPlanId: "plan-other",
            applyLockSince: new Date(),
            applyLockUntil: new Date(Date.now() + 60_000),
          },
        });
        return abortedWith(signal);
      },
    );
    expect(signalled?.aborted).toBe(true);
    expect(reason).toBeInstanceOf(ApplyLeaseLostError);
    expect((reason as Error).message).toMatch(
      /^the apply lease was lost: the target's lease is held by instance other pid 2 \(plan plan-other, until \S+Z\)$/,
    );
    // The release leaves the other apply's lease alone.
    expect(await lockColumns()).toMatchObject({
      applyLockToken: "another-instance",
      applyLockHolder: "other pid 2",
    });
  });

  it("tells the apply to stop when it could not renew before the lease ends (a stalled process)", async () => {
    const reason = await withTargetApplyLease(
      database.prisma,
      { targetId, planId: "plan-stalled", actor: null, leaseMs: 400, holder: "stalled" },
      async (signal) => {
        // The event loop blocked for longer than the lease: no renewal could run meanwhile.
        const until = Date.now() + 600;
        while (Date.now() < until);
        return abortedWith(signal);
      },
    );
    expect(reason).toBeInstanceOf(ApplyLeaseLostError);
    expect((reason as Error).message).toMatch(
      /^the apply lease was lost: it could not be renewed before its end at \S+Z \(.+\): another instance may take the target$/,
    );
    expect((await lockColumns()).applyLockToken).toBeNull();
  });

  it("does not disturb an apply whose renewals succeed", async () => {
    const aborted = await withTargetApplyLease(
      database.prisma,
      { targetId, planId: "plan-steady", actor: null, leaseMs: 200 },
      async (signal) => {
        await sleep(700);
        return signal.aborted;
      },
    );
    expect(aborted).toBe(false);
  });

  it("answers 404 for a target that does not exist", async () => {
    const missing = await refusal(
      withTargetApplyLease(
        database.prisma,
        { targetId: "00000000-0000-4000-8000-000000000000", planId: "p", actor: null },
        () => Promise.resolve("ran"),
      ),
    );
    expect(missing).toBeInstanceOf(DomainError);
    expect((missing as DomainError).kind).toBe("not_found");
  });
});
