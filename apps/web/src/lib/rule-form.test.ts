import { describe, expect, it } from "vitest";
import {
  decodeParent,
  encodeParent,
  lifecycleErrorField,
  mappingFormSchema,
  newRuleFormValues,
  parseApiMoment,
  PAST_START,
  ruleStatus,
  utcToLocalInput,
  ruleFormTitle,
  ruleFormValues,
  ZMappingForm,
  ZThresholdForm,
} from "./rule-form";

const SERVICE = "0b7e7e43-6f55-4f3c-9d6a-3f1f3f6f6a01";
const FIELD = "1c8f8f54-7a66-4a4d-8e7b-4a2a4a7a7b02";
const GROUP = "2d9a9a65-8b77-4b5e-9f8c-5b3b5b8b8c03";

const onField = newRuleFormValues({ parent: { field_id: FIELD } });
const onService = newRuleFormValues({ parent: { service_id: SERVICE } });

describe("rule parents in a form", () => {
  it("round-trips through the select's value", () => {
    expect(decodeParent(encodeParent({ field_id: FIELD }))).toEqual({ field_id: FIELD });
    expect(decodeParent(encodeParent({ service_id: SERVICE }))).toEqual({ service_id: SERVICE });
    expect(decodeParent("")).toBeNull();
    expect(decodeParent("group:x")).toBeNull();
  });
});

describe("mapping form", () => {
  it("turns the form into the API's input with an exact cost", () => {
    const result = ZMappingForm.safeParse({
      ...onField,
      value: "m1.small",
      cost: " 0.1 ",
      type: "rate",
      group_id: GROUP,
      tenant_id: "  ",
    });
    expect(result.success && result.data).toEqual({
      field_id: FIELD,
      value: "m1.small",
      type: "rate",
      cost: "0.1000000000000000000000000000",
      group_id: GROUP,
      tenant_id: null,
    });
  });

  it("sends no value for a service mapping and no group when none is chosen", () => {
    const result = ZMappingForm.safeParse({ ...onService, cost: "2", value: "ignored" });
    expect(result.success && result.data).toEqual({
      service_id: SERVICE,
      type: "flat",
      cost: "2.0000000000000000000000000000",
      group_id: null,
      tenant_id: null,
    });
  });

  it("asks for the parent, the value of a field mapping and a cost", () => {
    const noParent = ZMappingForm.safeParse(newRuleFormValues({}));
    expect(noParent.error?.issues.map((issue) => issue.path.join("."))).toEqual(["parent", "cost"]);
    const result = ZMappingForm.safeParse(onField);
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toEqual(["value", "cost"]);
  });

  it("refuses what the API refuses, with its message", () => {
    const result = ZMappingForm.safeParse({
      ...onService,
      cost: "0.00000000000000000000000000001",
    });
    expect(result.error?.issues[0]).toMatchObject({
      path: ["cost"],
      message: "More than 28 fractional digits cannot be stored exactly.",
    });
    expect(ZMappingForm.safeParse({ ...onService, cost: "NaN" }).error?.issues[0]?.path).toEqual([
      "cost",
    ]);
    expect(ZMappingForm.safeParse({ ...onService, cost: "1e400" }).error?.issues[0]?.path).toEqual([
      "cost",
    ]);
  });
});

describe("threshold form", () => {
  it("needs a level and renders it with 8 decimals", () => {
    expect(ZThresholdForm.safeParse({ ...onService, cost: "0.95" }).error?.issues[0]?.path).toEqual(
      ["level"],
    );
    const result = ZThresholdForm.safeParse({
      ...onService,
      cost: "0.95",
      level: "50",
      type: "rate",
    });
    expect(result.success && result.data).toEqual({
      service_id: SERVICE,
      level: "50.00000000",
      type: "rate",
      cost: "0.9500000000000000000000000000",
      group_id: null,
      tenant_id: null,
    });
  });
});

describe("form values", () => {
  it("show an existing rule's decimals without padding and empty text for absent group and tenant", () => {
    expect(
      ruleFormValues({
        type: "rate",
        cost: "0.9800000000000000000000000000",
        level: "200.00000000",
        service_id: SERVICE,
        field_id: null,
        group_id: null,
        tenant_id: null,
      }),
    ).toEqual({
      parent: `service:${SERVICE}`,
      type: "rate",
      cost: "0.98",
      value: "",
      level: "200",
      group_id: "",
      tenant_id: "",
      name: "",
      description: "",
      start: "",
      end: "",
      force: false,
    });
  });

  it("preselect the parent and group of the page the form was opened from", () => {
    expect(newRuleFormValues({ groupId: GROUP })).toMatchObject({ parent: "", group_id: GROUP });
    expect(newRuleFormValues({ parent: { field_id: FIELD } }).parent).toBe(`field:${FIELD}`);
  });
});

describe("rule form titles", () => {
  it("say what is edited, created or only read", () => {
    expect(ruleFormTitle("mapping", { field_id: FIELD }, true, true)).toBe("Edit field mapping");
    expect(ruleFormTitle("threshold", { service_id: SERVICE }, false, true)).toBe(
      "New service threshold",
    );
    expect(ruleFormTitle("mapping", null, false, true)).toBe("New mapping");
    expect(ruleFormTitle("mapping", { field_id: FIELD }, true, false)).toBe("Field mapping");
  });
});

describe("rule lifecycle in the form", () => {
  const future = "2099-01-01T10:00";
  const later = "2099-02-01T10:00";

  it("sends name, description and dates in UTC, with an empty start left to the server", () => {
    const result = ZMappingForm.safeParse({
      ...onService,
      cost: "1",
      name: " gold ",
      description: "Gold tier",
      start: future,
      end: later,
    });
    expect(result.success && result.data).toMatchObject({
      name: "gold",
      description: "Gold tier",
      start: new Date(future).toISOString(),
      end: new Date(later).toISOString(),
    });
    const plain = ZMappingForm.safeParse({ ...onService, cost: "1" });
    expect(plain.success && plain.data).not.toHaveProperty("start");
    expect(plain.success && plain.data).not.toHaveProperty("end");
    expect(plain.success && plain.data).not.toHaveProperty("name");
  });

  it("asks to confirm a start in the past, and refuses an end before the start", () => {
    const past = ZThresholdForm.safeParse({
      ...onService,
      level: "1",
      cost: "1",
      start: "2001-01-01T00:00",
    });
    expect(past.error?.issues[0]).toMatchObject({ path: ["start"], message: PAST_START });
    expect(
      ZThresholdForm.safeParse({
        ...onService,
        level: "1",
        cost: "1",
        start: "2001-01-01T00:00",
        force: true,
      }).success,
    ).toBe(true);
    const backwards = ZMappingForm.safeParse({
      ...onService,
      cost: "1",
      start: later,
      end: future,
    });
    expect(backwards.error?.issues[0]?.path).toEqual(["end"]);
  });

  it("editing, leaves out unchanged dates and clears a removed end", () => {
    const rule = {
      type: "flat" as const,
      cost: "1",
      service_id: SERVICE,
      field_id: null,
      group_id: null,
      tenant_id: null,
      name: "gold",
      description: "Gold",
      start: "2001-01-01T00:00:00.123000",
      end: "2099-01-01T00:00:00",
    };
    const initial = ruleFormValues(rule);
    expect(initial.start).toBe(utcToLocalInput("2001-01-01T00:00:00Z"));
    const unchanged = mappingFormSchema(initial).safeParse(initial);
    expect(unchanged.success && unchanged.data).not.toHaveProperty("start");
    expect(unchanged.success && unchanged.data).not.toHaveProperty("end");
    const cleared = mappingFormSchema(initial).safeParse({ ...initial, end: "", description: "" });
    expect(cleared.success && cleared.data).toMatchObject({ end: null, description: null });
  });

  it("reads the API's offset-less moments as UTC and tells scheduled and ended rules", () => {
    expect(parseApiMoment("2026-11-25T21:00:00").toISOString()).toBe("2026-11-25T21:00:00.000Z");
    const now = new Date("2026-11-25T21:00:00Z");
    expect(ruleStatus({ start: "2026-11-25T22:00:00", end: null }, now)).toBe("Scheduled");
    expect(ruleStatus({ start: "2026-11-25T20:00:00", end: "2026-11-25T20:30:00" }, now)).toBe(
      "Ended",
    );
    expect(ruleStatus({ start: "2026-11-25T20:00:00", end: null }, now)).toBeNull();
  });
});

describe("server refusals of dates", () => {
  it("go next to the field they are about", () => {
    expect(lifecycleErrorField("Cannot create a rule with start in the past. start=[x]")).toBe(
      "start",
    );
    expect(lifecycleErrorField("Cannot create a rule with start after end. start=[x]")).toBe("end");
    expect(
      lifecycleErrorField(
        "You are allowed to update only the attribute [end] as this rule is already running",
      ),
    ).toBeUndefined();
  });
});
