import { describe, expect, it } from "vitest";
import { localAccountsServer, rpc, sessionHeaders } from "./support/auth.js";
import { createClient } from "./support/client.js";
import { cloudKittyAndRatecard, referenceCloudKitty } from "./support/cloudkitty.js";
import { expectFault, seeder, UNKNOWN_ID } from "./support/hashmap.js";
import {
  cliQuiet,
  drift,
  planAndApply,
  readCloudKitty,
  registerTarget,
  TARGETS,
} from "./support/target-bridge.js";

// Drift of a CloudKitty target (issue 14, section 4) over real HTTP against a real CloudKitty 17
// (../shared/reference/cloudkitty, noauth, SQLite) on a directory and port of this file's own:
// empty right after an apply; an out-of-band change made with the real `cloudkitty` CLI shows,
// naming the object and both values, against the last apply and against Ratecard.

const cloudKitty = referenceCloudKitty({
  dir: process.env.CK_DRIFT_TEST_DIR ?? "/tmp/ck-server-target-drift",
  port: Number(process.env.CK_DRIFT_TEST_PORT ?? 8968),
});
const CK_URL = cloudKitty.url;

describe("GET /v1/ratecard/targets/{id}/drift", () => {
  const ratecard = cloudKittyAndRatecard(cloudKitty, "ratecard-target-drift-");

  it("is empty after an apply, then names each out-of-band change with both values", async () => {
    const seed = seeder(ratecard.api);
    const instance = await seed.service("instance");
    const flavor = await seed.field(instance.service_id, "flavor_name");
    const group = await seed.group("instance_uptime");
    await seed.mapping({
      field_id: flavor.field_id,
      value: "m1.small",
      cost: "0.5",
      group_id: group.group_id,
    });
    await seed.mapping({ field_id: flavor.field_id, value: "m1.large", type: "rate", cost: "3" });
    // 0.1 is no double: CloudKitty on SQLite keeps 0.1000000000000000055511151231.
    await seed.threshold({ service_id: instance.service_id, level: "10", cost: "0.1" });

    const id = await registerTarget(ratecard.api, CK_URL);
    const before = await drift(ratecard.api, id);
    expect(before.last_apply).toBeNull();
    expect(before.counts.missing).toBe(6);

    const { plan, apply } = await planAndApply(ratecard.api, id);
    expect(apply.status, apply.text).toBe(200);
    expect(apply.body.status).toBe("ok");

    const clean = await drift(ratecard.api, id);
    expect(clean).toMatchObject({
      target_id: id,
      last_apply: {
        run_id: apply.body.run_id,
        ratecard_revision: plan.body.ratecard_revision,
      },
      double_precision: true,
      differences: [],
    });
    expect(Object.values(clean.counts).every((n) => n === 0)).toBe(true);

    // Out of band, with CloudKitty's own CLI: a cost changed, a mapping deleted, one added.
    const ck = await readCloudKitty(CK_URL);
    const small = ck.rules.find((r) => r.key === "m1.small")!;
    const large = ck.rules.find((r) => r.key === "m1.large")!;
    const fieldId = ck.fields.find((f) => f.name === "flavor_name")!.field_id;
    await cloudKitty.cli("hashmap", "mapping", "update", "--cost", "0.75", small.id);
    await cliQuiet(CK_URL, "hashmap", "mapping", "delete", large.id);
    const tiny = (
      await cloudKitty.cli(
        "hashmap",
        "mapping",
        "create",
        "--field-id",
        fieldId,
        "--value",
        "m1.tiny",
        "-t",
        "rate",
        "2",
      )
    )["Mapping ID"]!;

    const drifted = await drift(ratecard.api, id);
    const ratecardId = async (value: string) => {
      const mappings = await ratecard.api.get(`/v1/rating/module_config/hashmap/mappings`, {
        query: { field_id: flavor.field_id },
      });
      return mappings.body.mappings.find((m: any) => m.value === value).mapping_id;
    };
    for (const against of ["last_apply", "ratecard"]) {
      const mine = drifted.differences.filter((d: any) => d.against === against);
      expect(mine).toHaveLength(3);
      expect(mine).toEqual(
        expect.arrayContaining([
          {
            kind: "changed",
            object_kind: "mapping",
            path: "instance/flavor_name/mappings/m1.small",
            ratecard_id: await ratecardId("m1.small"),
            target_id: small.id,
            field: "cost",
            expected: "0.5",
            actual: "0.75",
            against,
          },
          {
            kind: "missing",
            object_kind: "mapping",
            path: "instance/flavor_name/mappings/m1.large",
            ratecard_id: await ratecardId("m1.large"),
            target_id: null,
            expected: "rate 3",
            against,
          },
          {
            kind: "extra",
            object_kind: "mapping",
            path: "instance/flavor_name/mappings/m1.tiny",
            ratecard_id: null,
            target_id: tiny,
            actual: "rate 2",
            against,
          },
        ]),
      );
    }
    expect(drifted.counts).toMatchObject({ changed: 2, missing: 2, extra: 2 });

    // Each check is a run of kind 'drift', its differences kept as the run's operations.
    const runs = await ratecard.api.get(`${TARGETS}/${id}/runs`, { query: { kind: "drift" } });
    expect(runs.status, runs.text).toBe(200);
    expect(runs.body.runs.map((r: any) => [r.run_id, r.status])).toEqual([
      [drifted.run_id, "ok"],
      [clean.run_id, "empty"],
      [before.run_id, "ok"],
    ]);
    const kept = await ratecard.api.get(`${TARGETS}/${id}/runs/${drifted.run_id}`);
    expect(kept.body.operations).toEqual(drifted.differences);
  }, 300_000);

  it("reports a disabled hashmap module holding rules, and services and fields no metric feeds", async () => {
    const seed = seeder(ratecard.api);
    const gpu = await seed.service("gpu.hours");
    await seed.mapping({ service_id: gpu.service_id, cost: "2" });
    const instance = (
      await ratecard.api.get("/v1/rating/module_config/hashmap/services")
    ).body.services.find((s: any) => s.name === "instance");
    await seed.field(instance.service_id, "colour");
    const id = await registerTarget(ratecard.api, CK_URL, { name: "metrics" });
    const { apply } = await planAndApply(ratecard.api, id);
    expect(apply.body.status, apply.text).toBe("ok");
    await cloudKitty.cli("module", "disable", "hashmap");
    try {
      const found = await drift(ratecard.api, id);
      const findings = found.differences
        .filter((d: any) =>
          ["module_disabled", "unknown_metric", "unknown_metadata"].includes(d.kind),
        )
        .map((d: any) => [d.kind, d.path, d.field ?? null]);
      expect(findings).toEqual(
        expect.arrayContaining([
          ["module_disabled", "modules/hashmap", "enabled"],
          ["unknown_metric", "gpu.hours", null],
          ["unknown_metadata", "instance/colour", null],
        ]),
      );
      // Debian's metrics.yml collects instance with flavor_name: no finding about it.
      expect(findings.some((f: any) => f[1] === "instance/flavor_name")).toBe(false);
    } finally {
      await cloudKitty.cli("module", "enable", "hashmap");
    }
  }, 300_000);
});

describe("GET /v1/ratecard/targets/{id}/drift: policy", () => {
  const local = localAccountsServer("ratecard-target-drift-policy-");

  it("refuses a reader (ratecard:manage_targets), over RPC and REST", async () => {
    const { admin, reader } = local;
    const input = { target_id: UNKNOWN_ID };
    const asReader = await rpc(local.baseUrl, "targets.drift", input, {
      headers: sessionHeaders(reader),
    });
    expect(asReader.code).toBe("FORBIDDEN");
    const asAdmin = await rpc(local.baseUrl, "targets.drift", input, {
      headers: sessionHeaders(admin),
    });
    expect(asAdmin.code).toBe("NOT_FOUND");
    const api = createClient(local.baseUrl);
    const rest = (token: string) =>
      api.get(`${TARGETS}/${UNKNOWN_ID}/drift`, { headers: { "X-Auth-Token": token } });
    expect((await rest(reader.token)).status).toBe(403);
    expectFault(await rest(admin.token), 404, `No such target: ${UNKNOWN_ID}`);
  });
});
