import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudKittyAndRatecard, referenceCloudKitty } from "./support/cloudkitty.js";
import { startFaultyProxy, type Fault, type FaultyProxy } from "./support/faulty-proxy.js";
import { seeder } from "./support/hashmap.js";
import {
  drift,
  duplicatesIn,
  planAndApply,
  readCloudKitty,
  registerTarget,
} from "./support/target-bridge.js";

// Fault injection (issue 14, section 4): an apply through a proxy that loses one write's answer
// after CloudKitty carried it out, or answers 503 to one write, stops (partial) or adopts what
// CloudKitty did; running plan + apply again converges, with no object twice in CloudKitty (read
// through CloudKitty's own REST) and no drift. Against a real CloudKitty 17 of this file's own.

const cloudKitty = referenceCloudKitty({
  dir: process.env.CK_FAULTS_TEST_DIR ?? "/tmp/ck-server-target-faults",
  port: Number(process.env.CK_FAULTS_TEST_PORT ?? 8969),
});

/** Writes of the apply, in its order: group, service, field, then the rules. */
const RULES = 6;

describe("apply through a faulty connection", () => {
  const ratecard = cloudKittyAndRatecard(cloudKitty, "ratecard-target-faults-");
  let proxy: FaultyProxy;

  beforeAll(async () => {
    proxy = await startFaultyProxy(cloudKitty.url);
    const seed = seeder(ratecard.api);
    const instance = await seed.service("instance");
    const flavor = await seed.field(instance.service_id, "flavor_name");
    const group = await seed.group("instance_uptime");
    const mapping = (body: Record<string, unknown>) =>
      seed.mapping({ field_id: flavor.field_id, ...body });
    // Tenant-less mappings: CloudKitty takes the same one twice with a 201, so a lost answer
    // retried blindly would leave a duplicate that bills.
    await mapping({ value: "m1.small", cost: "0.5", group_id: group.group_id });
    await mapping({ value: "m1.medium", cost: "1" });
    await mapping({ value: "m1.large", type: "rate", cost: "3" });
    await seed.mapping({ service_id: instance.service_id, cost: "0.25" });
    await seed.threshold({ service_id: instance.service_id, level: "10", cost: "0.1" });
    await seed.threshold({ field_id: flavor.field_id, level: "2", type: "rate", cost: "0.9" });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  const faults: [string, Fault][] = [
    ["a service create whose answer is lost", { kind: "drop-answer", nth: 2, method: "POST" }],
    ["a mapping create whose answer is lost", { kind: "drop-answer", nth: 5, method: "POST" }],
    ["the last rule create whose answer is lost", { kind: "drop-answer", nth: 3 + RULES }],
    // A 5xx may hide a write done: the apply re-lists, then sends the POST once more.
    ["a 503 to a mapping create", { kind: "unavailable", nth: 4, method: "POST" }],
    // CloudKitty refusing every write from the first mapping on (rules are sent in parallel).
    ["503s from the first mapping create on", { kind: "unavailable", nth: 4, times: 1000 }],
  ];

  it.each(faults)(
    "%s: apply stops or adopts, the rerun converges",
    async (name, fault) => {
      await cloudKitty.start(); // running already: an empty CloudKitty (reset.sh)
      const id = await registerTarget(ratecard.api, proxy.url, {
        name,
      });

      proxy.arm(fault);
      const first = await planAndApply(ratecard.api, id);
      expect(proxy.fired()).toBe(true);
      proxy.disarm();
      expect(first.apply.status, first.apply.text).toBe(200);
      const failed = first.apply.body.operations.filter((o: any) => o.error);
      if (fault.kind === "unavailable" && (fault.times ?? 1) > 1) {
        // Stopped at the first failure (the rules in flight failed too): nothing rolled back,
        // the rest not run.
        expect(first.apply.body.status, first.apply.text).toBe("partial");
        expect(failed.length, first.apply.text).toBeGreaterThan(0);
        for (const operation of failed) expect(operation.kind).toBe("mapping");
        expect(first.apply.body.counts.done).toBe(3);
      } else if (fault.kind === "unavailable") {
        expect(first.apply.body.status, first.apply.text).toBe("ok");
      } else {
        // The write happened; the answer did not come: stopped, or the row found and adopted.
        expect(["partial", "ok"]).toContain(first.apply.body.status);
        if (first.apply.body.status === "ok")
          expect(
            first.apply.body.operations.filter((o: any) => o.outcome === "adopted"),
            first.apply.text,
          ).toHaveLength(1);
      }

      const second = await planAndApply(ratecard.api, id);
      expect(second.apply.status, second.apply.text).toBe(200);
      expect(["ok", "empty"]).toContain(second.apply.body.status);

      const state = await readCloudKitty(cloudKitty.url);
      expect(duplicatesIn(state)).toEqual([]);
      expect(state.rules).toHaveLength(RULES);
      const third = await ratecard.api.post(`/v1/ratecard/targets/${id}/plan`, {});
      expect(third.body.operations, third.text).toEqual([]);
      expect((await drift(ratecard.api, id)).differences).toEqual([]);
    },
    300_000,
  );
});
