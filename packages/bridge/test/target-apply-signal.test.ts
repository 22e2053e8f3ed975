import { beforeEach, describe, expect, inject, it } from "vitest";
import { CloudKittyClient, cloudKittyTarget } from "@ratecard/cloudkitty";
import { canonicalizeRuleSet, type RuleSetDocument } from "@ratecard/ruleset";
import { resetCloudKitty } from "../../cloudkitty/test/support/cloudkitty.js";
import { applyTargetPlan, convertRuleSet, planTarget } from "../src/index.js";

// An apply told to stop (the server aborts the signal when the apply's lease on the target is lost)
// sends nothing more to CloudKitty: against the real CloudKitty 17 of the global setup, what it
// holds afterwards is exactly what was written before the signal.

const url = inject("ckUrl");
const client = new CloudKittyClient(cloudKittyTarget({ kind: "noauth", url }));
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

async function planned() {
  const target = convertRuleSet(await client.readRuleSet()).document;
  const ratecard: RuleSetDocument = canonicalizeRuleSet({
    ...target,
    services: [
      {
        id: id(10),
        name: "compute",
        mappings: [],
        thresholds: [],
        fields: [
          {
            id: id(11),
            name: "flavor_name",
            mappings: [1, 2, 3].map((n) => ({
              id: id(20 + n),
              value: `m${n}`,
              type: "flat" as const,
              cost: String(n),
              tenant_id: null,
              group_id: null,
            })),
            thresholds: [],
          },
        ],
      },
    ],
  });
  return { ratecard, plan: planTarget(ratecard, target, { prune: false }) };
}

const holds = async () => {
  const read = await client.readRuleSet();
  const services = read.services;
  const fields = services.flatMap((s) => s.fields);
  return {
    services: services.length,
    fields: fields.length,
    mappings: fields.flatMap((f) => f.mappings).length,
  };
};

describe("applyTargetPlan with a signal", () => {
  beforeEach(async () => {
    await resetCloudKitty();
  });

  it("stops before its next request once aborted: partial, with the signal's reason", async () => {
    const { ratecard, plan } = await planned();
    expect(plan.counts.create).toBe(5);
    const stop = new AbortController();
    const ids: string[] = [];
    const result = await applyTargetPlan(client, {
      plan,
      ratecard,
      pushScripts: false,
      pushModules: false,
      concurrency: 1,
      signal: stop.signal,
      onId: (entry) => {
        ids.push(entry.ratecard_id);
        // The lease is lost once CloudKitty took the service and the field.
        if (ids.length === 2) stop.abort(new Error("the apply lease was lost: taken by the test"));
      },
    });
    expect(result.status).toBe("partial");
    expect(result.error).toBe("the apply lease was lost: taken by the test");
    expect(result.counts).toMatchObject({ done: 2, failed: 0, not_run: 3 });
    expect(result.operations.map((o) => [o.kind, o.outcome])).toEqual([
      ["service", "done"],
      ["field", "done"],
      ["mapping", "not_run"],
      ["mapping", "not_run"],
      ["mapping", "not_run"],
    ]);
    expect(await holds()).toEqual({ services: 1, fields: 1, mappings: 0 });
  });

  it("sends nothing when aborted before it starts: failed", async () => {
    const { ratecard, plan } = await planned();
    const result = await applyTargetPlan(client, {
      plan,
      ratecard,
      pushScripts: false,
      pushModules: false,
      signal: AbortSignal.abort(new Error("the apply lease was lost: before the start")),
      onId: () => undefined,
    });
    expect(result.status).toBe("failed");
    expect(result.error).toBe("the apply lease was lost: before the start");
    expect(result.operations.every((o) => o.outcome === "not_run" && o.requests.length === 0)).toBe(
      true,
    );
    expect(await holds()).toEqual({ services: 0, fields: 0, mappings: 0 });
  });
});
