import { describe, expect, it } from "vitest";
import { compareDecimals } from "./decimal";
import { compareDecimalsCached } from "./sort-keys";

describe("cached decimal comparison", () => {
  const values = [
    "0.05",
    "0.0500000000000000000000000000",
    "10",
    "9.99999999",
    "-1.5",
    "-0",
    "0",
    "123456789012.0000000000000000000000000001",
    "0.00000000000000000000000000001",
    "abc",
    "",
  ];

  it("orders exactly as compareDecimals, signs, scales and non-numbers included", () => {
    for (const left of values)
      for (const right of values)
        expect(Math.sign(compareDecimalsCached(left, right)) || 0, `${left} vs ${right}`).toBe(
          Math.sign(compareDecimals(left, right)) || 0,
        );
  });

  it("sorts a list by value", () => {
    expect(["10", "9.5", "-2", "0.25", "x"].sort(compareDecimalsCached)).toEqual([
      "-2",
      "0.25",
      "9.5",
      "10",
      "x",
    ]);
  });
});
