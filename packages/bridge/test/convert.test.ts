import { beforeAll, describe, expect, inject, it } from "vitest";
import { CloudKittyClient, cloudKittyTarget, type CloudKittyRuleSet } from "@ratecard/cloudkitty";
import { validateRuleSet, type RuleSetDocument } from "@ratecard/ruleset";
import { resetCloudKitty } from "../../cloudkitty/test/support/cloudkitty.js";
import { convertRuleSet, describeReport, isEmptyRuleSet, mergeRuleSets } from "../src/index.js";
import { seedCloudKitty, type Seeded } from "./support/seed.js";

const url = inject("ckUrl");

describe("convertRuleSet of a CloudKitty 17 seeded with its own CLI", () => {
  let seeded: Seeded;
  let source: CloudKittyRuleSet;

  beforeAll(async () => {
    await resetCloudKitty();
    seeded = await seedCloudKitty(url);
    source = await new CloudKittyClient(cloudKittyTarget({ kind: "noauth", url })).readRuleSet();
  });

  it("keeps every object with CloudKitty's id and a valid document", () => {
    const { document } = convertRuleSet(source);
    expect(validateRuleSet(document).ok).toBe(true);

    expect(document.groups).toEqual([
      { id: seeded.groups.uptime, name: "instance_uptime" },
      { id: seeded.groups.storage, name: "storage" },
    ]);
    expect(document.services.map((s) => [s.name, s.id])).toEqual([
      ["compute", seeded.services.compute],
      ["volume.size", seeded.services.volume],
    ]);
    const [compute, volume] = document.services;
    expect(compute!.fields.map((f) => [f.name, f.id])).toEqual([
      ["flavor_name", seeded.fields.flavor],
    ]);
    expect(compute!.fields[0]!.mappings).toEqual([
      {
        id: seeded.mappings.small,
        value: "m1.small",
        type: "flat",
        cost: "0.5",
        tenant_id: null,
        group_id: seeded.groups.uptime,
      },
      {
        id: seeded.mappings.smallTenant,
        value: "m1.small",
        type: "flat",
        cost: "0.25",
        tenant_id: "tenant-a",
        group_id: seeded.groups.uptime,
      },
      // SQLite hands CloudKitty a double: 1e-8 comes back as its 28-digit expansion, kept exactly.
      expect.objectContaining({ id: seeded.mappings.tiny, value: "m1.tiny" }),
    ]);
    expect(compute!.mappings).toEqual([
      {
        id: seeded.mappings.computeBase,
        value: null,
        type: "flat",
        cost: "1",
        tenant_id: null,
        group_id: seeded.groups.uptime,
      },
    ]);
    expect(compute!.thresholds).toEqual([
      expect.objectContaining({
        id: seeded.thresholds.computeTenant,
        level: "0",
        tenant_id: "tenant-a",
      }),
    ]);
    expect(volume!.thresholds).toEqual([
      expect.objectContaining({ id: seeded.thresholds.volumeTen, level: "10", type: "rate" }),
    ]);
    const volumeType = volume!.fields[0]!;
    expect(volumeType.id).toBe(seeded.fields.volumeType);
    expect(volumeType.thresholds).toEqual([
      expect.objectContaining({
        id: seeded.thresholds.typeHundred,
        level: "100.5",
        cost: "3",
        group_id: seeded.groups.storage,
      }),
    ]);
    expect(volumeType.mappings.map((m) => [m.value, m.type, m.cost])).toEqual([
      ["hdd", "flat", expect.stringMatching(/^0\.[12]/)],
      ["ssd", "rate", "2"],
    ]);
    expect(document.scripts).toEqual([
      { id: seeded.script, name: "discount", data: "data = 1\n# exact\n" },
    ]);
    expect(document.modules).toEqual(
      expect.arrayContaining([
        { id: "hashmap", enabled: expect.any(Boolean), priority: 5 },
        { id: "pyscripts", enabled: expect.any(Boolean), priority: 3 },
      ]),
    );
  });

  it("reports each tenant-less duplicate with both ids and imports one", () => {
    const { document, report } = convertRuleSet(source);
    const hdd = report.duplicates.find((d) => d.parent === "volume.size/volume_type")!;
    expect(hdd).toMatchObject({ kind: "mapping", key: "hdd", tenant_id: null, costsDiffer: true });
    expect([hdd.kept.id, ...hdd.dropped.map((r) => r.id)].sort()).toEqual(
      [...seeded.dupHdd].sort(),
    );
    const service = report.duplicates.find((d) => d.parent === "volume.size")!;
    expect(service).toMatchObject({ kind: "mapping", key: null, costsDiffer: false });
    expect([service.kept.id, ...service.dropped.map((r) => r.id)].sort()).toEqual(
      [...seeded.dupService].sort(),
    );
    expect(report.duplicates).toHaveLength(2);

    // The kept one is in the document, the dropped one is not.
    const volume = document.services.find((s) => s.name === "volume.size")!;
    const ids = [...volume.mappings, ...volume.fields[0]!.mappings].map((m) => m.id);
    expect(ids).toContain(hdd.kept.id);
    expect(ids).not.toContain(hdd.dropped[0]!.id);
    expect(ids).toContain(service.kept.id);
    expect(ids).not.toContain(service.dropped[0]!.id);

    const lines = describeReport(report);
    expect(lines.join("\n")).toContain(hdd.dropped[0]!.id);
    expect(lines.join("\n")).toContain("whichever it loads last");
    expect(report.counts).toEqual({
      modules: 3,
      groups: 2,
      services: 2,
      fields: 2,
      mappings: 7,
      thresholds: 3,
      scripts: 1,
    });
  });

  it("names the costs CloudKitty holds as a double's expansion (a CloudKitty on SQLite)", () => {
    const { report } = convertRuleSet(source);
    const tiny = report.doubles.find((d) => d.id === seeded.mappings.tiny);
    expect(tiny).toMatchObject({ attribute: "cost", likely: "0.00000001" });
    expect(tiny!.imported).not.toBe("0.00000001");
  });
});

describe("convertRuleSet of what Ratecard cannot hold", () => {
  const ids = {
    service: "11111111-1111-4111-8111-111111111111",
    field: "22222222-2222-4222-8222-222222222222",
    group: "33333333-3333-4333-8333-333333333333",
  };
  const rule = (id: string, extra: { value: string; cost: string; group_id?: string }) => ({
    mapping_id: id,
    type: "flat" as const,
    service_id: null,
    field_id: ids.field,
    group_id: null,
    tenant_id: null,
    ...extra,
  });
  const source: CloudKittyRuleSet = {
    endpoint: "http://ck",
    requestCount: 0,
    modules: [
      { module_id: "hashmap", description: null, enabled: true, hot_config: true, priority: 1 },
      { module_id: "custom", description: null, enabled: true, hot_config: false, priority: 2 },
    ],
    groups: [],
    scripts: [],
    services: [
      {
        service_id: ids.service,
        name: "compute",
        mappings: [],
        thresholds: [],
        fields: [
          {
            field_id: ids.field,
            service_id: ids.service,
            name: "flavor",
            mappings: [
              rule("44444444-4444-4444-8444-444444444444", { value: "", cost: "1" }),
              rule("55555555-5555-4555-8555-555555555555", {
                value: "a",
                cost: "1",
                group_id: ids.group,
              }),
              rule("66666666-6666-4666-8666-666666666666", { value: "b", cost: "1E-30" }),
              rule("77777777-7777-4777-8777-777777777777", { value: "c", cost: "1.5E+2" }),
            ],
            thresholds: [],
          },
        ],
      },
    ],
  };

  it("reports an unknown module, a field mapping without value, an unknown group and a cost beyond 28 digits", () => {
    const { document, report } = convertRuleSet(source);
    expect(report.skipped.map((s) => [s.kind, s.id])).toEqual([
      ["module", "custom"],
      ["mapping", "44444444-4444-4444-8444-444444444444"],
      ["mapping", "55555555-5555-4555-8555-555555555555"],
      ["mapping", "66666666-6666-4666-8666-666666666666"],
    ]);
    expect(report.skipped[3]!.reason).toContain("28 fractional digits");
    // An exponent is only a way of writing: 1.5E+2 is 150.
    expect(document.services[0]!.fields[0]!.mappings).toEqual([
      expect.objectContaining({ id: "77777777-7777-4777-8777-777777777777", cost: "150" }),
    ]);
  });
});

describe("mergeRuleSets", () => {
  const doc = (partial: Partial<RuleSetDocument>): RuleSetDocument => ({
    format: "ratecard.ruleset",
    version: 1,
    revision: "",
    modules: [],
    groups: [],
    services: [],
    scripts: [],
    ...partial,
  });
  const S1 = "aaaaaaaa-0000-4000-8000-000000000001";
  const S2 = "aaaaaaaa-0000-4000-8000-000000000002";
  const F1 = "bbbbbbbb-0000-4000-8000-000000000001";
  const M = (n: number) => `cccccccc-0000-4000-8000-00000000000${n}`;
  const mapping = (id: string, value: string, cost: string) => ({
    id,
    value,
    type: "flat" as const,
    cost,
    tenant_id: null,
    group_id: null,
  });

  it("adds what is missing, keeps Ratecard's objects and reports each conflict", () => {
    const current = doc({
      services: [
        {
          id: S1,
          name: "compute",
          mappings: [],
          thresholds: [],
          fields: [
            { id: F1, name: "flavor", mappings: [mapping(M(1), "m1.small", "1")], thresholds: [] },
          ],
        },
      ],
    });
    const incoming = doc({
      services: [
        {
          // Same name, another id: its rules go under Ratecard's service.
          id: S2,
          name: "compute",
          mappings: [],
          thresholds: [],
          fields: [
            {
              id: "bbbbbbbb-0000-4000-8000-000000000009",
              name: "flavor",
              mappings: [
                mapping(M(2), "m1.small", "2"), // same rule as M(1): conflict
                mapping(M(3), "m1.large", "3"), // missing: added
                mapping(M(1), "m1.small", "9"), // same id, different cost: conflict
              ],
              thresholds: [],
            },
          ],
        },
      ],
    });
    const merged = mergeRuleSets(current, incoming);
    expect(validateRuleSet(merged.document).ok).toBe(true);
    const flavor = merged.document.services[0]!.fields[0]!;
    expect(merged.document.services.map((s) => s.id)).toEqual([S1]);
    expect(flavor.mappings.map((m) => [m.id, m.cost])).toEqual([
      [M(3), "3"],
      [M(1), "1"],
    ]);
    expect(merged.added).toMatchObject({ services: 0, fields: 0, mappings: 1 });
    expect(merged.conflicts.map((c) => [c.kind, c.id])).toEqual([
      ["service", S2],
      ["field", "bbbbbbbb-0000-4000-8000-000000000009"],
      ["mapping", M(2)],
      ["mapping", M(1)],
    ]);
    expect(isEmptyRuleSet(current)).toBe(false);
    expect(isEmptyRuleSet(doc({}))).toBe(true);
  });
});
