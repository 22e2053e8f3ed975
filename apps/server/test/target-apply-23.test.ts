import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createClient, HASHMAP, PYSCRIPTS } from "./support/client.js";
import { cloudKittyAndRatecard } from "./support/cloudkitty.js";
import { CLOUDKITTY_23_SRC, cloudKitty23 } from "./support/cloudkitty-23.js";
import { startServer } from "./support/server.js";

// Applying Ratecard's rule set to a CloudKitty 23 or later (API generation 23+) over real HTTP:
// CloudKitty master run from the source tree CLOUDKITTY_23_SRC points at (support/cloudkitty-23.ts:
// the system python3 and Debian's libraries, noauth, SQLite), on a directory and port of this
// file's own (CK23_APPLY_TEST_DIR, CK23_APPLY_TEST_PORT). CI has no CloudKitty 23 (Debian ships 17,
// and nothing else may be downloaded there): without CLOUDKITTY_23_SRC the file is skipped.

const TARGETS = "/v1/ratecard/targets";
const SKIP_REASON =
  "skipped: CLOUDKITTY_23_SRC is unset (the path of a CloudKitty 23+ source tree, e.g. " +
  "`git archive` of openstack/cloudkitty master; CI has no CloudKitty 23)";

const cloudKitty = cloudKitty23({
  dir: process.env.CK23_APPLY_TEST_DIR ?? "/tmp/ck23/test-apply",
  port: Number(process.env.CK23_APPLY_TEST_PORT ?? 8973),
});

async function ck(pathname: string, query: Record<string, string> = {}): Promise<any> {
  const url = new URL(pathname, cloudKitty.url);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const response = await fetch(url);
  expect(response.status, `${pathname} ${JSON.stringify(query)}`).toBe(200);
  return response.json();
}

const changing = (counts: Record<string, number>) =>
  counts.create! +
  counts.update! +
  counts.replace! +
  counts.delete! +
  counts.module! +
  counts.supersede!;

/** A moment as CloudKitty 23 and Ratecard's rule-set document write it (UTC, no offset). */
const moment = (time: number) => new Date(time).toISOString().slice(0, 19);

describe.skipIf(!CLOUDKITTY_23_SRC)(
  `apply to CloudKitty 23+${CLOUDKITTY_23_SRC ? "" : ` (${SKIP_REASON})`}`,
  () => {
    const ratecard = cloudKittyAndRatecard(cloudKitty, "ratecard-target-apply-23-");
    const post = async (pathname: string, body: unknown = {}) =>
      ratecard.api.request("POST", pathname, { body });
    const created = async (pathname: string, body: unknown) => {
      const answer = await post(pathname, body);
      expect(answer.status, answer.text).toBe(201);
      return answer.body;
    };

    it("applies with validity dates, supersedes a started rule's price change with no gap, pushes scripts with dates, and converges", async () => {
      const compute = (await created(`${HASHMAP}/services`, { name: "compute" })).service_id;
      const flavor = (await created(`${HASHMAP}/fields`, { service_id: compute, name: "flavor" }))
        .field_id;
      const group = (await created(`${HASHMAP}/groups`, { name: "instance_uptime" })).group_id;
      const small = (
        await created(`${HASHMAP}/mappings`, {
          field_id: flavor,
          value: "m1.small",
          type: "flat",
          cost: "0.5",
          group_id: group,
        })
      ).mapping_id;
      await created(`${HASHMAP}/mappings`, {
        field_id: flavor,
        value: "m1.large",
        type: "rate",
        cost: "3",
        tenant_id: "7d3c0e32a0e24d3f8f4f6c5b1a2e9d10",
      });
      // A scheduled rule: it starts tomorrow and ends the day after, with a name and description.
      const day = 24 * 3600_000;
      const tomorrow = moment(Math.floor(Date.now() / 1000) * 1000 + day);
      const later = moment(Math.floor(Date.now() / 1000) * 1000 + 2 * day);
      const scheduled = (
        await created(`${HASHMAP}/mappings`, {
          field_id: flavor,
          value: "m1.xlarge",
          type: "flat",
          cost: "4",
          start: tomorrow,
          end: later,
          name: "xlarge-next",
          description: "next price",
        })
      ).mapping_id;
      await created(`${HASHMAP}/thresholds`, {
        service_id: compute,
        level: "10",
        type: "flat",
        cost: "0.25",
      });

      const target = await post(TARGETS, {
        name: "ck23",
        mode: "managed",
        prune: true,
        connection: { kind: "noauth", url: cloudKitty.url },
      });
      expect(target.status, target.text).toBe(201);
      const id = target.body.target_id;
      const probe = await post(`${TARGETS}/${id}/probe`);
      expect(probe.body.generation, probe.text).toBe("23+");

      const plan = await post(`${TARGETS}/${id}/plan`);
      expect(plan.status, plan.text).toBe(200);
      expect(plan.body).toMatchObject({
        generation: "23+",
        in_force_only: false,
        counts: { create: 7, update: 0, replace: 0, delete: 0, supersede: 0, frozen: 0 },
      });
      expect(plan.body.notes.join(" ")).toContain("CloudKitty 23 or later");

      const applied = await post(`${TARGETS}/${id}/apply`, { plan_id: plan.body.plan_id });
      expect(applied.status, applied.text).toBe(200);
      expect(applied.body).toMatchObject({ status: "ok", error: null });

      // Read back through CloudKitty's own REST API.
      const serviceId = (await ck(`${HASHMAP}/services`)).services[0].service_id;
      const fieldId = (await ck(`${HASHMAP}/fields`, { service_id: serviceId })).fields[0].field_id;
      const listed = async () =>
        (await ck(`${HASHMAP}/mappings`, { field_id: fieldId })).mappings as any[];
      const first = await listed();
      expect(first.map((m) => m.value).sort()).toEqual(["m1.large", "m1.small", "m1.xlarge"]);
      const xlarge = first.find((m) => m.value === "m1.xlarge");
      expect(xlarge).toMatchObject({
        start: tomorrow,
        end: later,
        name: "xlarge-next",
        description: "next price",
        type: "flat",
      });
      expect(Number(xlarge.cost)).toBe(4);
      const inForce = (await ck(`${HASHMAP}/mappings`, { field_id: fieldId, is_active: "true" }))
        .mappings as any[];
      expect(inForce.map((m) => m.value).sort()).toEqual(["m1.large", "m1.small"]);
      const thresholds = (await ck(`${HASHMAP}/thresholds`, { service_id: serviceId })).thresholds;
      expect(thresholds).toHaveLength(1);

      const drift = await ratecard.api.get(`${TARGETS}/${id}/drift`);
      expect(drift.status, drift.text).toBe(200);
      expect(drift.body.differences, drift.text).toEqual(
        drift.body.differences.filter(
          (d: any) => d.kind === "unknown_metric" || d.kind === "unknown_metadata",
        ),
      );
      const second = await post(`${TARGETS}/${id}/plan`);
      expect(changing(second.body.counts), second.text).toBe(0);

      // A price change of a started rule (Ratecard edits in place): CloudKitty 23 refuses to edit a
      // started rule, so the old one ends at T and Ratecard's starts at T.
      const put = await ratecard.api.request("PUT", `${HASHMAP}/mappings/${small}`, {
        body: { field_id: flavor, value: "m1.small", type: "flat", cost: "0.75", group_id: group },
      });
      expect(put.status, put.text).toBeLessThan(400);
      // And a cost change of the scheduled rule: updated in place (it has not started).
      const put2 = await ratecard.api.request("PUT", `${HASHMAP}/mappings/${scheduled}`, {
        body: { field_id: flavor, value: "m1.xlarge", type: "flat", cost: "4.5" },
      });
      expect(put2.status, put2.text).toBeLessThan(400);

      const change = await post(`${TARGETS}/${id}/plan`);
      expect(change.status, change.text).toBe(200);
      const ops = change.body.operations.map((o: any) => [o.op, o.path]).sort();
      expect(ops, change.text).toEqual([
        ["supersede", "compute/flavor/mappings/m1.small"],
        ["update", "compute/flavor/mappings/m1.xlarge"],
      ]);
      const superseding = change.body.operations.find((o: any) => o.op === "supersede");
      expect(superseding.reason).toContain("ends at T");

      const appliedChange = await post(`${TARGETS}/${id}/apply`, {
        plan_id: change.body.plan_id,
      });
      expect(appliedChange.status, appliedChange.text).toBe(200);
      expect(appliedChange.body.status, appliedChange.text).toBe("ok");
      const supersedeRun = appliedChange.body.operations.find((o: any) => o.op === "supersede");
      expect(supersedeRun.requests.map((r: any) => r.method)).toEqual(["PUT", "POST"]);

      const after = await listed();
      const smalls = after
        .filter((m) => m.value === "m1.small")
        .sort((a, b) => (a.start < b.start ? -1 : 1));
      expect(smalls).toHaveLength(2);
      const [old, current] = smalls;
      expect(Number(old.cost)).toBe(0.5);
      expect(Number(current.cost)).toBe(0.75);
      // No gap, no overlap: the old one ends where the new one starts.
      expect(old.end).toBe(current.start);
      expect(current.end).toBeNull();
      expect(current.group_id).toBe(old.group_id);
      const xlargeNow = after.find((m) => m.value === "m1.xlarge");
      expect(Number(xlargeNow.cost)).toBe(4.5);
      expect(xlargeNow).toMatchObject({ start: tomorrow, end: later, description: "next price" });

      const driftAfter = await ratecard.api.get(`${TARGETS}/${id}/drift`);
      expect(
        driftAfter.body.differences.filter(
          (d: any) => d.kind !== "unknown_metric" && d.kind !== "unknown_metadata",
        ),
        driftAfter.text,
      ).toEqual([]);
      const third = await post(`${TARGETS}/${id}/plan`);
      expect(changing(third.body.counts), third.text).toBe(0);
      expect(third.body.counts.unmanaged + third.body.counts.frozen, third.text).toBe(0);

      // Scripts (the target opts in): one in force, one scheduled; then an end, and a change of a
      // started script under the same name, which CloudKitty 23 cannot take (frozen).
      const discount = (
        await created(`${PYSCRIPTS}/scripts`, { name: "discount", data: "a = 1\n" })
      ).script_id;
      await created(`${PYSCRIPTS}/scripts`, {
        name: "promo",
        data: "b = 2\n",
        start: tomorrow,
        description: "from tomorrow",
      });
      const patched = await ratecard.api.request("PATCH", `${TARGETS}/${id}`, {
        body: { push_scripts: true },
      });
      expect(patched.status, patched.text).toBe(200);
      const scriptsPlan = await post(`${TARGETS}/${id}/plan`);
      expect(
        scriptsPlan.body.operations.map((o: any) => [o.op, o.path]).sort(),
        scriptsPlan.text,
      ).toEqual([
        ["create", "scripts/discount"],
        ["create", "scripts/promo"],
      ]);
      const scriptsApplied = await post(`${TARGETS}/${id}/apply`, {
        plan_id: scriptsPlan.body.plan_id,
      });
      expect(scriptsApplied.body.status, scriptsApplied.text).toBe("ok");
      const scripts = async () =>
        ((await ck(`${PYSCRIPTS}/scripts`)).scripts as any[]).sort((a, b) =>
          a.name < b.name ? -1 : 1,
        );
      const [ckDiscount, ckPromo] = await scripts();
      expect(ckDiscount).toMatchObject({ name: "discount", data: "a = 1\n", end: null });
      expect(ckPromo).toMatchObject({
        name: "promo",
        start: tomorrow,
        description: "from tomorrow",
      });

      const ended = await ratecard.api.request("PUT", `${PYSCRIPTS}/scripts/${discount}`, {
        body: { name: "discount", data: "a = 1\n", end: later },
      });
      expect(ended.status, ended.text).toBeLessThan(400);
      const endPlan = await post(`${TARGETS}/${id}/plan`);
      expect(
        endPlan.body.operations.map((o: any) => [o.op, o.path, o.changes]),
        endPlan.text,
      ).toEqual([["update", "scripts/discount", ["end"]]]);
      const endApplied = await post(`${TARGETS}/${id}/apply`, { plan_id: endPlan.body.plan_id });
      expect(endApplied.body.status, endApplied.text).toBe("ok");
      expect((await scripts())[0]).toMatchObject({ name: "discount", end: later, data: "a = 1\n" });

      const rewritten = await ratecard.api.request("PUT", `${PYSCRIPTS}/scripts/${discount}`, {
        body: { name: "discount", data: "a = 3\n" },
      });
      expect(rewritten.status, rewritten.text).toBeLessThan(400);
      const frozenPlan = await post(`${TARGETS}/${id}/plan`);
      expect(
        frozenPlan.body.operations.map((o: any) => [o.op, o.path]),
        frozenPlan.text,
      ).toEqual([["frozen", "scripts/discount"]]);
      expect(changing(frozenPlan.body.counts)).toBe(0);

      // Another Ratecard imports this CloudKitty: the dates come along (the old half of the
      // superseded price is CloudKitty's past, not imported), and the first plan is empty.
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-target-import-23-"));
      const other = await startServer({ env: { DATA_DIR: dataDir } });
      try {
        const api = createClient(other.baseUrl);
        const source = await api.request("POST", TARGETS, {
          body: {
            name: "ck23-source",
            mode: "import-source",
            push_scripts: true,
            connection: { kind: "noauth", url: cloudKitty.url },
          },
        });
        expect(source.status, source.text).toBe(201);
        const sourceId = source.body.target_id;
        const imported = await api.request("POST", `${TARGETS}/${sourceId}/import`, { body: {} });
        expect(imported.status, imported.text).toBe(200);
        expect(imported.body.report.duplicates).toEqual([]);
        expect(imported.body.report.notes.join(" ")).toContain("followed by a later one");
        const exported = (await api.get("/v1/ratecard/ruleset")).body;
        const importedXlarge = exported.services[0].fields[0].mappings.find(
          (m: any) => m.value === "m1.xlarge",
        );
        expect(importedXlarge).toMatchObject({ start: tomorrow, end: later, cost: "4.5" });
        const importedSmall = exported.services[0].fields[0].mappings.find(
          (m: any) => m.value === "m1.small",
        );
        expect(importedSmall.cost).toBe("0.75");
        const firstPlan = await api.request("POST", `${TARGETS}/${sourceId}/plan`, { body: {} });
        expect(firstPlan.status, firstPlan.text).toBe(200);
        expect(changing(firstPlan.body.counts), firstPlan.text).toBe(0);
        expect(firstPlan.body.counts.frozen, firstPlan.text).toBe(0);
      } finally {
        await other.stop();
      }
    }, 180_000);
  },
);
