import { describe, expect, it } from "vitest";
import { compareDecimals, decimalsEqual, isDecimalText, toPlainDecimal } from "../src/index.js";
import { parseJsonExactly } from "../src/json.js";
import { ZMapping, ZModule, ZScript } from "../src/schemas.js";

describe("decimal text", () => {
  it("writes CloudKitty's renderings in plain notation, exactly", () => {
    expect(toPlainDecimal("1.00000000000000002092E-8")).toBe("0.0000000100000000000000002092");
    expect(toPlainDecimal("123456789.1234567910432815551757812500")).toBe(
      "123456789.12345679104328155517578125",
    );
    expect(toPlainDecimal("0E-28")).toBe("0");
    expect(toPlainDecimal("-0.000")).toBe("0");
    expect(toPlainDecimal("10.50000000")).toBe("10.5");
    expect(toPlainDecimal("1.5E+3")).toBe("1500");
    expect(toPlainDecimal(".5")).toBe("0.5");
    expect(toPlainDecimal("-12.340e1")).toBe("-123.4");
    expect(() => toPlainDecimal("NaN")).toThrow(RangeError);
    expect(isDecimalText("Infinity")).toBe(false);
    expect(isDecimalText("1e5")).toBe(true);
  });

  it("compares without a double", () => {
    expect(compareDecimals("0.1000000000000000000000000001", "0.1")).toBe(1);
    expect(compareDecimals("-2", "-10")).toBe(1);
    expect(compareDecimals("1E-8", "0.00000001")).toBe(0);
    expect(compareDecimals("9", "10")).toBe(-1);
    expect(decimalsEqual("0.5000000000000000000000000000", "5e-1")).toBe(true);
  });
});

describe("reading CloudKitty's answers", () => {
  it("keeps a cost sent as a JSON number as its source text", () => {
    const body = parseJsonExactly(
      '{"mapping_id": "m", "value": null, "type": "flat", "cost": 0.1000000000000000000000000001,' +
        ' "service_id": "s", "field_id": null, "group_id": null, "tenant_id": null}',
    );
    expect(ZMapping.parse(body).cost).toBe("0.1000000000000000000000000001");
  });

  it("reads module priorities as integers and renames hot-config", () => {
    const body = parseJsonExactly(
      '{"module_id": "hashmap", "description": "d", "enabled": true, "hot-config": true, "priority": 5}',
    );
    expect(ZModule.parse(body)).toEqual({
      module_id: "hashmap",
      description: "d",
      enabled: true,
      hot_config: true,
      priority: 5,
    });
  });

  it("refuses a cost that is not a number", () => {
    const body = parseJsonExactly(
      '{"mapping_id": "m", "value": null, "type": "flat", "cost": "NaN",' +
        ' "service_id": "s", "field_id": null, "group_id": null, "tenant_id": null}',
    );
    expect(ZMapping.safeParse(body).success).toBe(false);
  });

  it("keeps CloudKitty 23's validity dates and audit fields where they are sent", () => {
    const mapping = ZMapping.parse(
      parseJsonExactly(
        '{"mapping_id": "m", "value": "a", "type": "flat", "cost": "1", "service_id": null,' +
          ' "field_id": "f", "group_id": null, "tenant_id": null, "created_at": "2026-01-01T10:10:10",' +
          ' "start": "2026-02-01T00:00:00", "end": null, "name": "rule 1", "description": null,' +
          ' "deleted": null, "created_by": "u1", "updated_by": null, "deleted_by": null}',
      ),
    );
    expect(mapping).toMatchObject({ start: "2026-02-01T00:00:00", end: null, name: "rule 1" });
    const script = ZScript.parse({ script_id: "s", name: "n", data: "", checksum: "c" });
    expect(script).not.toHaveProperty("start");
  });
});
