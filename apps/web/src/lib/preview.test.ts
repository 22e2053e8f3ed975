import { describe, expect, it } from "vitest";
import {
  buildPreviewRequest,
  chargedByHashmap,
  describeThreshold,
  formFromSearch,
  groupFormula,
  moduleStateOf,
  parsePreviewSearch,
  previewSearch,
  previewRuleIds,
  pricesZeroForLackOfFlat,
  thresholdEffect,
  type GroupBreakdown,
  type PreviewForm,
} from "./preview";
import { parseSearch, stringifySearch } from "./search";

const fieldNames = ["volume_type", "vcpus"];

const form = (patch: Partial<PreviewForm> = {}): PreviewForm => ({
  service: "volume.size",
  quantity: "80",
  tenant: "",
  fieldValues: {},
  extraRows: [],
  nextRowId: 0,
  ...patch,
});

describe("the preview's query string", () => {
  it("keeps its own parameters as text and drops the rest", () => {
    const search = parsePreviewSearch(
      parseSearch(
        "?service=volume.size&quantity=0080&tenant=123&meta.volume_type=ssd&meta.=x&meta.region=eu&tab=x&meta.empty=",
      ),
    );
    expect(search).toEqual({
      service: "volume.size",
      quantity: "0080",
      tenant: "123",
      "meta.volume_type": "ssd",
      "meta.region": "eu",
    });
  });

  it("fills the field inputs and puts other keys in rows, in URL order", () => {
    const restored = formFromSearch(
      parsePreviewSearch(
        parseSearch("?service=volume.size&meta.region=eu&meta.vcpus=4&meta.zone=a"),
      ),
      fieldNames,
    );
    expect(restored).toEqual({
      service: "volume.size",
      quantity: "1",
      tenant: "",
      fieldValues: { vcpus: "4" },
      extraRows: [
        { id: 0, key: "region", value: "eu" },
        { id: 1, key: "zone", value: "a" },
      ],
      nextRowId: 2,
    });
  });

  it("round-trips through the URL", () => {
    const typed = form({
      tenant: " acme ",
      fieldValues: { volume_type: "ssd", other_service_field: "x" },
      extraRows: [{ id: 3, key: " region ", value: "eu" }],
    });
    const text = stringifySearch(previewSearch(typed, fieldNames));
    expect(text).toBe(
      "?service=volume.size&quantity=80&tenant=acme&meta.volume_type=ssd&meta.region=eu",
    );
    const again = formFromSearch(parsePreviewSearch(parseSearch(text)), fieldNames);
    expect(buildPreviewRequest(again, fieldNames).request).toEqual(
      buildPreviewRequest(typed, fieldNames).request,
    );
  });
});

describe("the preview request", () => {
  it("sends the quantity canonical, metadata as text and the tenant trimmed", () => {
    const { request, errors } = buildPreviewRequest(
      form({
        quantity: " 2.50e2 ",
        tenant: " acme ",
        fieldValues: { volume_type: "ssd ", vcpus: "", gone: "x" },
        extraRows: [
          { id: 0, key: "region", value: "0.5" },
          { id: 1, key: "", value: "" },
          { id: 2, key: "zone", value: "" },
        ],
      }),
      fieldNames,
    );
    expect(errors).toEqual({ rows: {} });
    expect(request).toEqual({
      service: "volume.size",
      volume: "250",
      // The trailing space stays: CloudKitty matches the value exactly.
      metadata: { volume_type: "ssd ", region: "0.5" },
      tenant_id: "acme",
    });
  });

  it("explains a quantity that is not an exact decimal, with the API's words", () => {
    expect(buildPreviewRequest(form({ quantity: "abc" }), fieldNames)).toEqual({
      request: null,
      errors: { rows: {}, quantity: "Not a decimal number (NaN and infinities are refused)." },
    });
    expect(buildPreviewRequest(form({ quantity: "  " }), fieldNames).errors.quantity).toBe(
      "Enter a quantity, for example 80.",
    );
    expect(
      buildPreviewRequest(form({ quantity: "0.00000000000000000000000000001" }), fieldNames).errors
        .quantity,
    ).toBe("More than 28 fractional digits cannot be stored exactly.");
    expect(buildPreviewRequest(form({ quantity: "-3" }), fieldNames).request?.volume).toBe("-3");
  });

  it("refuses metadata rows it cannot send, naming the row", () => {
    const { request, errors } = buildPreviewRequest(
      form({
        extraRows: [
          { id: 4, key: "", value: "orphan" },
          { id: 5, key: "vcpus", value: "2" },
          { id: 6, key: "region", value: "eu" },
          { id: 7, key: "region ", value: "us" },
        ],
      }),
      fieldNames,
    );
    expect(request).toBeNull();
    expect(errors.rows).toEqual({
      4: "Enter the metadata key for this value.",
      5: "vcpus is a field of this service: use its own input above.",
      7: "region is already set in another row.",
    });
  });

  it("waits for a service", () => {
    expect(buildPreviewRequest(form({ service: "" }), fieldNames)).toEqual({
      request: null,
      errors: { rows: {} },
    });
  });

  it("leaves the tenant out when empty", () => {
    expect(buildPreviewRequest(form({ tenant: "  " }), fieldNames).request).toEqual({
      service: "volume.size",
      volume: "80",
      metadata: {},
    });
  });
});

const group = (patch: Partial<GroupBreakdown>): GroupBreakdown => ({
  group_id: null,
  group_name: "_DEFAULT_",
  flat: "0.001",
  rate: "1",
  threshold: null,
  price: "0.08",
  mapping_ids: ["m1"],
  warnings: [],
  ...patch,
});
const threshold = (kind: "service" | "field", type: "flat" | "rate") => ({
  threshold_id: "t1",
  level: "200",
  type,
  cost: "0.95",
  kind,
  field_name: kind === "field" ? "vcpus" : null,
});

describe("explaining a group's price", () => {
  it("writes CloudKitty's formula with the point's numbers, thresholds before or after the quantity", () => {
    expect(groupFormula(group({}), "80")).toEqual({
      symbols: "rate × flat × quantity",
      numbers: "1 × 0.001 × 80 = 0.08",
    });
    expect(
      groupFormula(group({ threshold: threshold("service", "rate"), price: "0.2375" }), "250"),
    ).toEqual({
      symbols: "rate × flat × quantity × threshold",
      numbers: "1 × 0.001 × 250 × 0.95 = 0.2375",
    });
    expect(
      groupFormula(group({ threshold: threshold("service", "flat"), price: "1.2" }), "250").numbers,
    ).toBe("1 × 0.001 × 250 + 0.95 = 1.2");
    expect(
      groupFormula(group({ threshold: threshold("field", "flat"), price: "237.75" }), "250")
        .numbers,
    ).toBe("1 × (0.001 + 0.95) × 250 = 237.75");
    expect(
      groupFormula(group({ threshold: threshold("field", "rate"), price: "0.2375" }), "250")
        .numbers,
    ).toBe("1 × 0.95 × 0.001 × 250 = 0.2375");
  });

  it("names the threshold and what it does", () => {
    expect(describeThreshold(threshold("service", "rate"))).toBe(
      "rate service threshold at level 200",
    );
    expect(describeThreshold(threshold("field", "flat"))).toBe(
      "flat field threshold on vcpus at level 200",
    );
    expect(thresholdEffect(threshold("service", "flat"))).toBe(
      "adds 0.95 once, after the quantity (not per unit)",
    );
    expect(thresholdEffect(threshold("field", "rate"))).toBe(
      "multiplies the rate by 0.95, before the quantity",
    );
  });

  it("spots a group whose rates have no flat price to multiply", () => {
    expect(pricesZeroForLackOfFlat(group({ flat: "0", rate: "1.5", price: "0" }))).toBe(true);
    expect(
      pricesZeroForLackOfFlat(group({ flat: "0", threshold: threshold("field", "flat") })),
    ).toBe(false);
    expect(pricesZeroForLackOfFlat(group({ flat: "0.001" }))).toBe(false);
  });
});

describe("the rating modules in the preview", () => {
  const modules = (hashmap: boolean, pyscripts: boolean) => [
    { module_id: "hashmap", enabled: hashmap },
    { module_id: "pyscripts", enabled: pyscripts },
    { module_id: "noop", enabled: false },
  ];

  it("charge 0 while hashmap is disabled, the rules' total otherwise", () => {
    const state = moduleStateOf(modules(false, true), 2);
    expect(state).toEqual({ hashmapEnabled: false, scriptsRun: true, scripts: 2 });
    expect(chargedByHashmap("0.18", state)).toBe("0");
    expect(chargedByHashmap("0.18", moduleStateOf(modules(true, false), 2))).toBe("0.18");
  });

  it("count scripts only when pyscripts is enabled and has some (or they cannot be counted)", () => {
    expect(moduleStateOf(modules(true, true), 0)?.scriptsRun).toBe(false);
    expect(moduleStateOf(modules(true, false), 3)?.scriptsRun).toBe(false);
    expect(moduleStateOf(modules(true, true), null)?.scriptsRun).toBe(true);
  });

  it("say nothing when the modules cannot be read", () => {
    expect(moduleStateOf(undefined, 1)).toBeNull();
    expect(chargedByHashmap("0.18", null)).toBe("0.18");
  });
});

describe("the rules a preview names", () => {
  const id = (digit: string) =>
    `${digit.repeat(8)}-${digit.repeat(4)}-4${digit.repeat(3)}-8${digit.repeat(3)}-${digit.repeat(12)}`;
  it("are the applied mappings and thresholds, the excluded rules and those its notes name, once", () => {
    const group = {
      group_id: null,
      group_name: "_DEFAULT_",
      flat: "1",
      rate: "1",
      threshold: {
        threshold_id: id("3"),
        level: "10",
        type: "rate" as const,
        cost: "0.5",
        kind: "service" as const,
        field_name: null,
      },
      price: "1",
      mapping_ids: [id("1"), id("2")],
      warnings: [`rule ${id("4")} overrides rule ${id("1")}`],
    };
    expect(
      previewRuleIds({
        groups: [group],
        warnings: [`tenant rule ${id("5").toUpperCase()}`],
        excluded: [{ rule_id: id("6") }],
      }),
    ).toEqual([id("1"), id("2"), id("3"), id("4"), id("6"), id("5")]);
    expect(previewRuleIds({ groups: [], warnings: [] })).toEqual([]);
  });
});
