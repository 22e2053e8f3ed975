import { describe, expect, it } from "vitest";
import { PolicyError, createPolicy } from "../src/index.js";

const admin = { roles: ["admin"] };
const reader = { roles: ["reader"] };

describe("createPolicy", () => {
  it("denies a rule it does not define, even when a rule named default allows everything", () => {
    const policy = createPolicy({ default: "", known: "@" });
    expect(policy.enforce("known", {})).toBe(true);
    expect(policy.enforce("unknown", admin)).toBe(false);
  });

  it("denies through rule: to a rule it does not define", () => {
    const policy = createPolicy({ default: "", typo: "rule:no_such_rule or role:admin" });
    expect(policy.enforce("typo", reader)).toBe(false);
    expect(policy.enforce("typo", admin)).toBe(true);
  });

  it("follows rule: references", () => {
    const policy = createPolicy({
      context_is_admin: "role:admin",
      reads: "role:reader or rule:context_is_admin",
      preview: "rule:reads",
    });
    expect(policy.enforce("preview", reader)).toBe(true);
    expect(policy.enforce("preview", admin)).toBe(true);
    expect(policy.enforce("preview", { roles: ["member"] })).toBe(false);
  });

  it("lets an override replace a default, which rules that refer to it then follow", () => {
    const policy = createPolicy(
      { "rating:module_config": "role:admin", "ratecard:read": "rule:rating:module_config" },
      { "rating:module_config": "role:admin or role:reader", extra: "role:auditor" },
    );
    expect(policy.enforce("ratecard:read", reader)).toBe(true);
    expect(policy.enforce("extra", { roles: ["auditor"] })).toBe(true);
    expect(policy.rules().get("rating:module_config")).toBe("role:admin or role:reader");
    expect([...policy.rules().keys()]).toEqual(["rating:module_config", "ratecard:read", "extra"]);
  });

  it("takes an empty target when none is given", () => {
    const policy = createPolicy({ own: "project_id:%(project_id)s" });
    expect(policy.enforce("own", { project_id: "p" })).toBe(false);
    expect(policy.enforce("own", { project_id: "p" }, { project_id: "p" })).toBe(true);
  });

  it("refuses a check string that does not parse, naming the rule", () => {
    expect(() => createPolicy({ good: "@", bad: "role:a or" })).toThrow(
      /^cannot parse rule "bad": cannot parse "role:a or"/,
    );
    expect(() => createPolicy({}, { bad: "admin" })).toThrow(PolicyError);
  });

  // oslo.policy only logs cyclic rules and then recurses until Python's stack overflows when one
  // is enforced; a cycle is a PolicyError here, so enforce never has to guard against one.
  describe("cycles of rule: references", () => {
    it("refuses a rule that refers to itself", () => {
      expect(() => createPolicy({ loop: "role:admin or rule:loop" })).toThrow(
        'rule "loop" refers to itself: "loop" -> "loop"',
      );
    });

    it("refuses a longer cycle and names every rule on it", () => {
      let thrown: unknown;
      try {
        createPolicy({ a: "rule:b", b: "role:x and rule:c", c: "not rule:a", d: "rule:a" });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(PolicyError);
      expect((thrown as PolicyError).rules).toEqual(["a", "b", "c"]);
      expect((thrown as PolicyError).message).toBe(
        'rule "a" refers to itself: "a" -> "b" -> "c" -> "a"',
      );
    });

    it("accepts a rule reached twice without a cycle", () => {
      const policy = createPolicy({
        base: "role:admin",
        left: "rule:base",
        right: "rule:base",
        both: "rule:left and rule:right or rule:base",
      });
      expect(policy.enforce("both", admin)).toBe(true);
    });
  });

  it("evaluates a deep chain of references", () => {
    const rules: Record<string, string> = { r0: "role:admin" };
    for (let i = 1; i <= 500; i++) rules[`r${i}`] = `rule:r${i - 1}`;
    const policy = createPolicy(rules);
    expect(policy.enforce("r500", admin)).toBe(true);
    expect(policy.enforce("r500", reader)).toBe(false);
  });
});
