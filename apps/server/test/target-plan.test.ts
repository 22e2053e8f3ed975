import { describe, expect, it } from "vitest";
import { localAccountsServer, rpc, sessionHeaders } from "./support/auth.js";
import { HASHMAP } from "./support/client.js";
import { expectFault, UNKNOWN_ID } from "./support/hashmap.js";
import { cloudKittyAndRatecard, referenceCloudKitty } from "./support/cloudkitty.js";

// The read-only plan of a CloudKitty target (issue 14, section 4) over real HTTP, against a real
// CloudKitty 17 (../shared/reference/cloudkitty, noauth) on a directory and port of this file's
// own, seeded with the real `cloudkitty` CLI, as targets.test.ts does.

const TARGETS = "/v1/ratecard/targets";

const cloudKitty = referenceCloudKitty({
  dir: process.env.CK_PLAN_TEST_DIR ?? "/tmp/ck-server-target-plan",
  port: Number(process.env.CK_PLAN_TEST_PORT ?? 8951),
});
const CK_URL = cloudKitty.url;
const cli = cloudKitty.cli;

const brief = (operations: any[]) =>
  operations.map((o) => [o.op, o.kind, o.path]).sort((a, b) => (a.join() < b.join() ? -1 : 1));

describe("POST /v1/ratecard/targets/{id}/plan", () => {
  const ratecard = cloudKittyAndRatecard(cloudKitty, "ratecard-target-plan-");

  it("is empty after an import, then lists exactly Ratecard's changes and CloudKitty's extras", async () => {
    const compute = (await cli("hashmap", "service", "create", "compute"))["Service ID"]!;
    const flavor = (await cli("hashmap", "field", "create", compute, "flavor"))["Field ID"]!;
    const group = (await cli("hashmap", "group", "create", "instance_uptime"))["Group ID"]!;
    const mapping = (...args: string[]) =>
      cli("hashmap", "mapping", "create", ...args).then((row) => row["Mapping ID"]!);
    const small = await mapping("--field-id", flavor, "--value", "m1.small", "-g", group, "0.5");
    await mapping("--field-id", flavor, "--value", "m1.large", "-t", "rate", "3");
    const threshold = (await cli("hashmap", "threshold", "create", "-s", compute, "10", "0.5"))[
      "Threshold ID"
    ]!;

    const target = await ratecard.api.post(TARGETS, {
      name: "local",
      mode: "managed",
      connection: { kind: "noauth", url: CK_URL },
    });
    expect(target.status, target.text).toBe(201);
    const id = target.body.target_id;
    expect((await ratecard.api.post(`${TARGETS}/${id}/probe`, {})).status).toBeLessThan(300);
    const imported = await ratecard.api.post(`${TARGETS}/${id}/import`, {});
    expect(imported.status, imported.text).toBe(200);

    const empty = await ratecard.api.post(`${TARGETS}/${id}/plan`, {});
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toMatchObject({
      target_id: id,
      revision: imported.body.revision,
      generation: "pre-23",
      prune: false,
      operations: [],
      counts: { create: 0, update: 0, replace: 0, delete: 0, unmanaged: 0, duplicate: 0 },
    });

    // Ratecard changes: a cost, a new mapping, a threshold deleted.
    const updated = await ratecard.api.put(`${HASHMAP}/mappings/${small}`, {
      mapping_id: small,
      field_id: flavor,
      value: "m1.small",
      type: "flat",
      cost: "0.75",
      group_id: group,
    });
    expect(updated.status, updated.text).toBeLessThan(400);
    const added = await ratecard.api.post(`${HASHMAP}/mappings`, {
      field_id: flavor,
      value: "m1.xlarge",
      type: "flat",
      cost: "4",
    });
    expect(added.status, added.text).toBe(201);
    expect((await ratecard.api.delete(`${HASHMAP}/thresholds/${threshold}`)).status).toBe(204);

    const changed = await ratecard.api.post(`${TARGETS}/${id}/plan`, {});
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.revision).not.toBe(imported.body.revision);
    expect(brief(changed.body.operations)).toEqual([
      ["create", "mapping", "compute/flavor/mappings/m1.xlarge"],
      ["unmanaged", "threshold", "compute/thresholds/10"],
      ["update", "mapping", "compute/flavor/mappings/m1.small"],
    ]);
    const update = changed.body.operations.find((o: any) => o.op === "update");
    expect(update).toMatchObject({
      ratecard_id: small,
      target_id: small,
      changes: ["cost"],
      before: { cost: "0.5" },
      after: { cost: "0.75" },
    });
    expect(changed.body.counts).toMatchObject({ create: 1, update: 1, unmanaged: 1, delete: 0 });

    // With prune, what exists only in CloudKitty is to be deleted.
    expect(
      (await ratecard.api.request("PATCH", `${TARGETS}/${id}`, { body: { prune: true } })).status,
    ).toBe(200);
    const pruned = await ratecard.api.post(`${TARGETS}/${id}/plan`, {});
    expect(pruned.body.operations).toContainEqual(
      expect.objectContaining({ op: "delete", kind: "threshold", target_id: threshold }),
    );
    expect(
      (await ratecard.api.request("PATCH", `${TARGETS}/${id}`, { body: { prune: false } })).status,
    ).toBe(200);

    // An object added in CloudKitty with its CLI.
    const outOfBand = await mapping("--field-id", flavor, "--value", "m1.nano", "0.1");
    const withExtra = await ratecard.api.post(`${TARGETS}/${id}/plan`, {});
    expect(withExtra.body.operations).toContainEqual(
      expect.objectContaining({
        op: "unmanaged",
        kind: "mapping",
        path: "compute/flavor/mappings/m1.nano",
        ratecard_id: null,
        target_id: outOfBand,
      }),
    );
    expect(withExtra.body.counts.unmanaged).toBe(2);

    // The plan is read only: Ratecard's revision did not move.
    const again = await ratecard.api.post(`${TARGETS}/${id}/plan`, {});
    expect(again.body.revision).toBe(changed.body.revision);
  });

  it("answers 404 for an unknown target", async () => {
    expectFault(
      await ratecard.api.post(`${TARGETS}/${UNKNOWN_ID}/plan`, {}),
      404,
      /No such target/,
    );
  });
});

describe("POST /v1/ratecard/targets/{id}/plan: policy", () => {
  const local = localAccountsServer("ratecard-target-plan-");

  it("refuses a reader (ratecard:manage_targets)", async () => {
    const { admin, reader } = local;
    const asReader = await rpc(
      local.baseUrl,
      "targets.plan",
      { target_id: UNKNOWN_ID },
      { type: "mutation", headers: sessionHeaders(reader) },
    );
    expect(asReader.code).toBe("FORBIDDEN");
    const asAdmin = await rpc(
      local.baseUrl,
      "targets.plan",
      { target_id: UNKNOWN_ID },
      { type: "mutation", headers: sessionHeaders(admin) },
    );
    expect(asAdmin.code).toBe("NOT_FOUND");
  });
});
