import { describe, expect, it } from "vitest";
import { parseQueryBoolean } from "../src/query.js";
import { ZQueryBoolean } from "../src/schemas.js";

describe("parseQueryBoolean", () => {
  it.each(["true", "True", "TRUE", "1", "yes", "Yes"])("reads %j as true", (word) => {
    expect(parseQueryBoolean(word)).toBe(true);
  });

  it.each(["false", "False", "0", "no", ""])(
    "reads %j as false (CloudKitty reads non-empty as true)",
    (word) => {
      expect(parseQueryBoolean(word)).toBe(false);
    },
  );

  it.each(["maybe", "on", "2", "tru"])("has no answer for %j", (word) => {
    expect(parseQueryBoolean(word)).toBeUndefined();
  });

  it("passes real booleans through (RPC callers send them)", () => {
    expect(parseQueryBoolean(false)).toBe(false);
  });

  it("makes the schema refuse a word that is neither", () => {
    expect(ZQueryBoolean.safeParse("maybe").success).toBe(false);
    expect(ZQueryBoolean.parse("False")).toBe(false);
  });
});
