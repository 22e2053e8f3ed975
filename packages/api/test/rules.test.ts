import { describe, expect, it } from "vitest";
import { checkMappingValue, requireOneParent } from "../src/domain/rules.js";

const SERVICE = "2f1f2c8e-0d8f-4b8e-9a57-5c3a0f6e1a01";
const FIELD = "8c1d8d6a-3b0e-4f7c-a0c9-6f2e4b7d9a02";

describe("requireOneParent", () => {
  it("takes exactly one of service_id and field_id", () => {
    expect(requireOneParent({ service_id: SERVICE })).toEqual({
      serviceId: SERVICE,
      fieldId: null,
    });
    expect(requireOneParent({ field_id: FIELD, service_id: null })).toEqual({
      serviceId: null,
      fieldId: FIELD,
    });
  });

  it("refuses both parents", () => {
    expect(() => requireOneParent({ service_id: SERVICE, field_id: FIELD })).toThrow(
      "You can only specify one parent.",
    );
  });

  it("refuses no parent", () => {
    expect(() => requireOneParent({})).toThrow("You must specify one parent.");
    expect(() => requireOneParent({ service_id: null, field_id: null })).toThrow(
      "You must specify one parent.",
    );
  });
});

describe("checkMappingValue", () => {
  const service = { serviceId: SERVICE, fieldId: null };
  const field = { serviceId: null, fieldId: FIELD };

  it("needs a value for a field mapping", () => {
    expect(checkMappingValue(field, "m1.small")).toBe("m1.small");
    for (const value of [undefined, null, ""]) {
      expect(() => checkMappingValue(field, value)).toThrow(
        "You must specify a value for a field mapping.",
      );
    }
  });

  it('refuses a value on a service mapping; absent is "", null stays null', () => {
    expect(() => checkMappingValue(service, "x")).toThrow(
      "You can't specify a value and a service_id.",
    );
    expect(checkMappingValue(service, undefined)).toBe("");
    expect(checkMappingValue(service, null)).toBeNull();
    expect(checkMappingValue(service, "")).toBe("");
  });
});
