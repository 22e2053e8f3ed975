import { describe, expect, it } from "vitest";
import { compareDecimals, trimDecimal } from "./decimal";

describe("trimDecimal", () => {
  it("drops the API's padding zeros without rounding", () => {
    expect(trimDecimal("0.5000000000000000000000000000")).toBe("0.5");
    expect(trimDecimal("10.00000000")).toBe("10");
    expect(trimDecimal("0.0000000000000000000000000001")).toBe("0.0000000000000000000000000001");
    expect(trimDecimal("123456789012.1234567890123456789012345678")).toBe(
      "123456789012.1234567890123456789012345678",
    );
    expect(trimDecimal("-1.2500")).toBe("-1.25");
    expect(trimDecimal("-0.000")).toBe("0");
    expect(trimDecimal("007.10")).toBe("7.1");
  });

  it("leaves text that is not a plain decimal alone", () => {
    expect(trimDecimal("abc")).toBe("abc");
    expect(trimDecimal("1e5")).toBe("1e5");
  });
});

describe("compareDecimals", () => {
  const sorted = (values: string[]) => [...values].sort(compareDecimals);

  it("orders by value, not by text or through floats", () => {
    expect(sorted(["10", "9", "-2", "0.5", "-10", "0"])).toEqual([
      "-10",
      "-2",
      "0",
      "0.5",
      "9",
      "10",
    ]);
    // These two differ only beyond double precision.
    expect(
      compareDecimals("0.1000000000000000000000000001", "0.1000000000000000000000000000"),
    ).toBe(1);
    expect(compareDecimals("1.50", "1.5")).toBe(0);
    expect(compareDecimals("-0", "0")).toBe(0);
    expect(compareDecimals("-1.5", "-1.25")).toBe(-1);
  });

  it("puts non-numbers last", () => {
    expect(sorted(["x", "2", "1"])).toEqual(["1", "2", "x"]);
  });
});
