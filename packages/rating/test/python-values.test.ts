import { describe, expect, it } from "vitest";
import { RatingDecimal, metadataNumber, metadataText, parsePythonDecimal } from "../src/index.js";

// Expected values were printed by CloudKitty's interpreter (/usr/bin/python3, 3.11):
// str(json.loads(JSON.stringify(value))) and str(decimal.Decimal(...)) for each input.

describe("parsePythonDecimal reads what Python's Decimal(str) reads", () => {
  it.each([
    [" 3 ", "3"],
    ["+4", "4"],
    ["1e1", "10"],
    ["1_0", "10"],
    ["_1", "1"],
    ["1._5", "1.5"],
    [" _5_ ", "5"],
    ["1e_1", "10"],
    [".5", "0.5"],
    ["5.", "5"],
    ["-.5", "-0.5"],
    ["\t7\n", "7"],
    ["\u00a08\u00a0", "8"],
    ["\u30005\u3000", "5"],
    ["\x1c5\x1f", "5"],
    ["\u0661\u0662", "12"],
    ["\u0663.\u0665", "3.5"],
    ["\uff11\uff12", "12"],
    ["\u{1d7cf}\u{1d7d0}", "12"],
    ["Infinity", "Infinity"],
    ["-inf", "-Infinity"],
    ["in_f", "Infinity"],
    ["INF", "Infinity"],
  ])("reads %j as %s", (text, expected) => {
    expect(parsePythonDecimal(text)?.toFixed()).toBe(expected);
  });

  it.each([
    "0x10",
    ".",
    "",
    "1e",
    "e1",
    "1,5",
    "1 0",
    "+-1",
    "- 1",
    "_ 5",
    "5 _",
    "\ufeff5",
    "\u200b5",
    "Infinite",
    "_",
  ])("rejects %j as Python does", (text) => {
    expect(parsePythonDecimal(text)).toBeNull();
  });

  it.each(["NaN", "nan5", "sNaN", "N_aN"])(
    "reads %j as no number: CloudKitty cannot compare NaN",
    (text) => {
      expect(parsePythonDecimal(text)).toBeNull();
    },
  );
});

describe("metadataText renders values as Python's str() of their JSON form", () => {
  it.each<[unknown, string]>([
    [0, "0"],
    [-0, "0"],
    [-7, "-7"],
    [0.5, "0.5"],
    [1 / 3, "0.3333333333333333"],
    [1e-4, "0.0001"],
    [1e-5, "1e-05"],
    [-1.5e-7, "-1.5e-07"],
    [123456789.123, "123456789.123"],
    [1e16, "10000000000000000"],
    [2 ** 53 + 2, "9007199254740994"],
    [1e20, "100000000000000000000"],
    [1e21, "1e+21"],
    [1.5e300, "1.5e+300"],
    [5e-324, "5e-324"],
    [Number.MAX_VALUE, "1.7976931348623157e+308"],
    [true, "True"],
    [false, "False"],
    [null, "None"],
    ["m1.small", "m1.small"],
  ])("renders %j as %s", (value, expected) => {
    expect(metadataText(value)).toBe(expected);
  });

  it("renders nothing for values JSON metadata should not hold", () => {
    expect(metadataText([1])).toBeUndefined();
    expect(metadataText({ a: 1 })).toBeUndefined();
    expect(metadataText(undefined)).toBeUndefined();
  });
});

describe("metadataNumber reads values as Python's Decimal() of their JSON form", () => {
  it.each<[number, string]>([
    [0.1, "0.1000000000000000055511151231257827021181583404541015625"],
    [0.3, "0.299999999999999988897769753748434595763683319091796875"],
    [1e-5, "0.000010000000000000000818030539140313095458623138256371021270751953125"],
    [-1.5e-7, "-1.4999999999999999321221677388293880284209080855362117290496826171875E-7"],
    [123456789.123, "123456789.1229999959468841552734375"],
    [1e21, "1000000000000000000000"],
  ])("reads %s exactly", (value, expected) => {
    expect(metadataNumber(value)?.eq(new RatingDecimal(expected))).toBe(true);
  });

  it("reads booleans as 1 and 0, and nothing from null, NaN or objects", () => {
    expect(metadataNumber(true)?.toFixed()).toBe("1");
    expect(metadataNumber(false)?.toFixed()).toBe("0");
    expect(metadataNumber(null)).toBeNull();
    expect(metadataNumber(Number.NaN)).toBeNull();
    expect(metadataNumber({ size: 1 })).toBeNull();
    expect(metadataNumber(Number.POSITIVE_INFINITY)?.toString()).toBe("Infinity");
  });
});
