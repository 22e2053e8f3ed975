import { beforeAll, describe, expect, inject, it } from "vitest";
import { CloudKittyClient, cloudKittyTarget, toPlainDecimal } from "../src/index.js";
import { cloudkittyCli, rawGet, resetCloudKitty } from "./support/cloudkitty.js";

const url = inject("ckUrl");
const cli = (...args: string[]) => cloudkittyCli(url, [...args, "-f", "json"]);
const one = async (...args: string[]) => ((await cli(...args)) as any[])[0];

/** The CLI's create output (`"Mapping ID"`, `"Cost"`, ...) in CloudKitty's wire names. */
function fromCli(row: Record<string, any>, kind: "mapping" | "threshold") {
  return {
    [`${kind}_id`]: row[kind === "mapping" ? "Mapping ID" : "Threshold ID"],
    ...(kind === "mapping" ? { value: row.Value } : { level: row.Level }),
    type: row.Type,
    cost: row.Cost,
    service_id: row["Service ID"],
    field_id: row["Field ID"],
    group_id: row["Group ID"],
    tenant_id: row["Project ID"],
  };
}

describe("readRuleSet against CloudKitty 17 seeded with its own CLI", () => {
  const seeded: Record<string, any> = {};

  beforeAll(async () => {
    await resetCloudKitty();
    const compute = await one("hashmap", "service", "create", "compute");
    const volume = await one("hashmap", "service", "create", "volume.size");
    const image = await one("hashmap", "service", "create", "image.size");
    const flavor = await one("hashmap", "field", "create", compute["Service ID"], "flavor_name");
    const imageField = await one("hashmap", "field", "create", compute["Service ID"], "image_id");
    const volumeType = await one("hashmap", "field", "create", volume["Service ID"], "volume_type");
    const uptime = await one("hashmap", "group", "create", "instance_uptime");
    const storage = await one("hashmap", "group", "create", "storage");
    const empty = await one("hashmap", "group", "create", "unused");
    const [c, v, f, vt, g1, g2] = [
      compute["Service ID"],
      volume["Service ID"],
      flavor["Field ID"],
      volumeType["Field ID"],
      uptime["Group ID"],
      storage["Group ID"],
    ];
    const mappings = [
      await one(
        "hashmap",
        "mapping",
        "create",
        "--field-id",
        f,
        "--value",
        "m1.tiny",
        "-g",
        g1,
        "0.00000001",
      ),
      await one(
        "hashmap",
        "mapping",
        "create",
        "--field-id",
        f,
        "--value",
        "m1.huge",
        "-g",
        g1,
        "123456789.123456789",
      ),
      await one(
        "hashmap",
        "mapping",
        "create",
        "--field-id",
        f,
        "--value",
        "m1.tiny",
        "-p",
        "tenant-a",
        "-g",
        g1,
        "2.5",
      ),
      await one("hashmap", "mapping", "create", "-s", c, "-t", "rate", "-g", g1, "1.5"),
      await one("hashmap", "mapping", "create", "-s", c, "-p", "tenant-b", "0.75"),
      await one(
        "hashmap",
        "mapping",
        "create",
        "--field-id",
        vt,
        "--value",
        "ssd",
        "-t",
        "rate",
        "-g",
        g2,
        "0.2",
      ),
      // CloudKitty accepts the same tenant-less rule twice (SQL NULLs compare distinct).
      await one("hashmap", "mapping", "create", "--field-id", vt, "--value", "hdd", "0.1"),
      await one("hashmap", "mapping", "create", "--field-id", vt, "--value", "hdd", "0.1"),
    ];
    const thresholds = [
      await one("hashmap", "threshold", "create", "-s", v, "-t", "rate", "10", "0.05"),
      await one("hashmap", "threshold", "create", "--field-id", vt, "-g", g2, "100.5", "3"),
      await one("hashmap", "threshold", "create", "-s", c, "-p", "tenant-a", "0", "0.00000001"),
    ];
    const script = await one("pyscript", "create", "discount", "data = 1\n# exact\n");
    await cloudkittyCli(url, ["module", "set", "priority", "hashmap", "5"]);
    await cloudkittyCli(url, ["module", "set", "priority", "pyscripts", "3"]);
    Object.assign(seeded, {
      services: { compute, volume, image },
      fields: { flavor, imageField, volumeType },
      groups: { uptime, storage, empty },
      mappings: mappings.map((row) => fromCli(row, "mapping")),
      thresholds: thresholds.map((row) => fromCli(row, "threshold")),
      script,
    });
  });

  it("returns every seeded object with CloudKitty's ids and exact cost text", async () => {
    const client = new CloudKittyClient(cloudKittyTarget({ kind: "noauth", url }));
    const ruleSet = await client.readRuleSet();

    expect(ruleSet.endpoint).toBe(url);
    expect(ruleSet.groups.map((group) => [group.name, group.group_id])).toEqual([
      ["instance_uptime", seeded.groups.uptime["Group ID"]],
      ["storage", seeded.groups.storage["Group ID"]],
      ["unused", seeded.groups.empty["Group ID"]],
    ]);
    expect(ruleSet.services.map((service) => [service.name, service.service_id])).toEqual([
      ["compute", seeded.services.compute["Service ID"]],
      ["image.size", seeded.services.image["Service ID"]],
      ["volume.size", seeded.services.volume["Service ID"]],
    ]);
    const compute = ruleSet.services[0]!;
    const volume = ruleSet.services[2]!;
    expect(compute.fields.map((field) => [field.name, field.field_id])).toEqual([
      ["flavor_name", seeded.fields.flavor["Field ID"]],
      ["image_id", seeded.fields.imageField["Field ID"]],
    ]);
    expect(ruleSet.services[1]).toMatchObject({ fields: [], mappings: [], thresholds: [] });

    const allMappings = ruleSet.services.flatMap((service) => [
      ...service.mappings,
      ...service.fields.flatMap((field) => field.mappings),
    ]);
    const allThresholds = ruleSet.services.flatMap((service) => [
      ...service.thresholds,
      ...service.fields.flatMap((field) => field.thresholds),
    ]);
    const byId = (a: any, b: any) =>
      (a.mapping_id ?? a.threshold_id) < (b.mapping_id ?? b.threshold_id) ? -1 : 1;
    expect([...allMappings].sort(byId)).toEqual([...seeded.mappings].sort(byId));
    expect([...allThresholds].sort(byId)).toEqual([...seeded.thresholds].sort(byId));

    // The service's own rules are under the service, field rules under their field.
    expect(compute.mappings.map((mapping) => mapping.tenant_id)).toEqual([null, "tenant-b"]);
    expect(compute.fields[0]!.mappings).toHaveLength(3);
    expect(volume.thresholds).toEqual([seeded.thresholds[0]]);

    expect(ruleSet.scripts).toEqual([
      {
        script_id: seeded.script["Script ID"],
        name: "discount",
        data: "data = 1\n# exact\n",
        checksum: seeded.script.Checksum,
      },
    ]);
    expect(ruleSet.modules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          module_id: "hashmap",
          enabled: true,
          priority: 5,
          hot_config: true,
        }),
        expect.objectContaining({ module_id: "pyscripts", enabled: true, priority: 3 }),
      ]),
    );
  });

  it("keeps costs as the exact text on the wire, never through a double", async () => {
    const client = new CloudKittyClient(cloudKittyTarget({ kind: "noauth", url }));
    const ruleSet = await client.readRuleSet();
    const flavor = ruleSet.services[0]!.fields[0]!;
    const raw = await rawGet(
      `${url}/v1/rating/module_config/hashmap/mappings?field_id=${flavor.field_id}`,
    );
    const costs = flavor.mappings.map((mapping) => mapping.cost);
    for (const cost of costs) expect(raw).toContain(`"cost": "${cost}"`);
    // CloudKitty on SQLite stores a double: 123456789.123456789 comes back as the double's exact
    // expansion, and 0.00000001 in exponent form. What it sent is what the client keeps.
    const huge = flavor.mappings.find((mapping) => mapping.value === "m1.huge")!;
    expect(huge.cost).toBe("123456789.1234567910432815551757812500");
    expect(Number(huge.cost)).toBe(Number("123456789.123456789"));
    const tiny = flavor.mappings.find((m) => m.value === "m1.tiny" && m.tenant_id === null)!;
    expect(tiny.cost).toMatch(/E-8$/);
    expect(Number(tiny.cost)).toBe(0.00000001);
    expect(toPlainDecimal(tiny.cost)).toBe("0.0000000100000000000000002092");
  });

  it("reads CloudKitty's duplicate tenant-less mappings as two rules", async () => {
    const client = new CloudKittyClient(cloudKittyTarget({ kind: "noauth", url }));
    const volume = (await client.readRuleSet()).services.find((s) => s.name === "volume.size")!;
    const hdd = volume.fields[0]!.mappings.filter((mapping) => mapping.value === "hdd");
    expect(hdd).toHaveLength(2);
    expect(new Set(hdd.map((mapping) => mapping.mapping_id)).size).toBe(2);
    expect(hdd.map(({ mapping_id: _, ...rest }) => rest)[0]).toEqual(
      hdd.map(({ mapping_id: _, ...rest }) => rest)[1],
    );
  });

  it("walks the tree with bounded concurrency and a stable order", async () => {
    const client = new CloudKittyClient(cloudKittyTarget({ kind: "noauth", url }), {
      concurrency: 2,
    });
    const first = await client.readRuleSet();
    const second = await new CloudKittyClient(
      cloudKittyTarget({ kind: "noauth", url }),
    ).readRuleSet();
    expect(second).toEqual(first);
    // modules, groups, services, scripts; 3 per service; 2 per field
    expect(first.requestCount).toBe(4 + 3 * 3 + 2 * 3);
  });
});
