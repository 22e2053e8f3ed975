import { describe, expect, it } from "vitest";
import { CheckSyntaxError, formatCheck, parseCheck } from "../src/index.js";

const grouping = (text: string): string => formatCheck(parseCheck(text));

// Expected groupings from oslo.policy's own tests (oslo_policy/tests/test_parser.py), printed
// the way oslo's str() prints a check tree.
describe("grouping, as oslo.policy's parser reduces it", () => {
  it.each([
    ["@ or ! or @", "(@ or ! or @)"],
    ["@ or ! and @", "(@ or (! and @))"],
    ["@ and ! or @", "((@ and !) or @)"],
    ["@ and ! and @", "(@ and ! and @)"],
    ["@ or ! or @ or !", "(@ or ! or @ or !)"],
    ["@ or ! or @ and !", "(@ or ! or (@ and !))"],
    ["@ or ! and @ or !", "(@ or (! and @) or !)"],
    ["@ or ! and @ and !", "(@ or (! and @ and !))"],
    ["@ and ! or @ or !", "((@ and !) or @ or !)"],
    ["@ and ! or @ and !", "((@ and !) or (@ and !))"],
    ["@ and ! and @ or !", "((@ and ! and @) or !)"],
    ["@ and ! and @ and !", "(@ and ! and @ and !)"],
    ["not @ and ! or @", "((not @ and !) or @)"],
    ["@ and not ! or @", "((@ and not !) or @)"],
    ["@ and ! or not @", "((@ and !) or not @)"],
    ["( @ ) and ! or @", "((@ and !) or @)"],
    ["@ and ( ! ) or @", "((@ and !) or @)"],
    ["( @ ) and ( ! ) or ( @ )", "((@ and !) or @)"],
    ["( ( @ and ! ) ) or @", "((@ and !) or @)"],
    ["( @ and ! or @ )", "((@ and !) or @)"],
    ["@ and ( ! or @ )", "(@ and (! or @))"],
    ["not ( @ ) and ! or @", "((not @ and !) or @)"],
    ["( not @ and ! or @ )", "((not @ and !) or @)"],
    ["not @ and ( ! or @ )", "(not @ and (! or @))"],
    ["not ( @ and ! or @ )", "not ((@ and !) or @)"],
    ["@ and ( not ! ) or @", "((@ and not !) or @)"],
  ])("%s reduces to %s", (text, expected) => {
    expect(grouping(text)).toBe(expected);
  });

  it("lets `and` take the last operand of an `or` already built (A or B and C)", () => {
    expect(grouping("role:a or role:b and role:c")).toBe("(role:a or (role:b and role:c))");
    expect(grouping("role:a or role:b and role:c and role:d")).toBe(
      "(role:a or (role:b and role:c and role:d))",
    );
  });

  it("reads and, or, not in any case", () => {
    expect(grouping("NOT role:a AND role:b Or role:c")).toBe("((not role:a and role:b) or role:c)");
  });

  it("splits parentheses only at the ends of a word, so %(name)s stays whole", () => {
    expect(grouping("(project_id:%(project_id)s)")).toBe("project_id:%(project_id)s");
    // One word, so one role check whose name is `a)or(role:b`.
    expect(grouping("(role:a)or(role:b)")).toBe("role:a)or(role:b");
  });

  it("parses CloudKitty's admin_or_owner", () => {
    expect(
      grouping(
        "is_admin:True or (role:admin and is_admin_project:True) or project_id:%(project_id)s",
      ),
    ).toBe(
      "(is_admin:True or (role:admin and is_admin_project:True) or project_id:%(project_id)s)",
    );
  });

  it("keeps everything after the first colon as the match", () => {
    expect(parseCheck("rule:rating:module_config")).toEqual({
      type: "rule",
      name: "rating:module_config",
    });
    expect(parseCheck("role:compute:admin")).toMatchObject({
      type: "role",
      match: "compute:admin",
    });
  });
});

describe("single checks", () => {
  it("reads the empty string as always", () => {
    expect(parseCheck("")).toEqual({ type: "true" });
  });

  it("reads @ and !", () => {
    expect(parseCheck("@")).toEqual({ type: "true" });
    expect(parseCheck("!")).toEqual({ type: "false" });
  });

  it("reads the left side of a generic check as a literal or a credentials path", () => {
    expect(parseCheck("is_admin:True")).toMatchObject({ subject: { path: ["is_admin"] } });
    expect(parseCheck("token.roles.name:admin")).toMatchObject({
      subject: { path: ["token", "roles", "name"] },
    });
    expect(parseCheck("True:%(enabled)s")).toMatchObject({ subject: { literal: "True" } });
    expect(parseCheck("'Member':%(role.name)s")).toMatchObject({ subject: { literal: "Member" } });
    expect(parseCheck('"Member":%(role.name)s')).toMatchObject({ subject: { literal: "Member" } });
    expect(parseCheck("-7:%(n)s")).toMatchObject({ subject: { literal: "-7" } });
  });

  it("keeps the kind case-sensitive: Role: is a credentials path, not a role check", () => {
    expect(parseCheck("Role:admin")).toMatchObject({
      type: "generic",
      subject: { path: ["Role"] },
    });
  });

  it("reads %(name)s and %% in the match", () => {
    expect(parseCheck("project_id:%(project_id)s")).toMatchObject({
      template: [{ targetKey: "project_id" }],
    });
    expect(parseCheck("name:a%%b-%(x)s")).toMatchObject({
      template: [{ text: "a%b-" }, { targetKey: "x" }],
    });
  });
});

// oslo.policy logs "Failed to understand rule" and denies for these; Ratecard refuses them.
describe("check strings that do not parse", () => {
  it.each([
    ["a word without a colon", "admin"],
    ["True alone", "True"],
    ["blank but not empty", "   "],
    ["a bare quoted string", "'admin'"],
    ["a quoted string in an expression", "role:a or 'admin'"],
    ["a dangling operator", "role:a and"],
    ["a leading operator", "or role:a"],
    ["two checks side by side", "role:a role:b"],
    ["an unclosed parenthesis", "(role:a or role:b"],
    ["an extra closing parenthesis", "role:a)"],
    ["empty parentheses", "()"],
    ["not without an operand", "not"],
    ["nothing before the colon", ":x"],
    ["an unclosed quote in the kind", "'a:b"],
    ["a stray percent sign", "name:50%"],
    ["a non-string conversion", "n:%(n)d"],
    ["a remote http check", "http://example.com/check"],
  ])("refuses %s: %j", (_why, text) => {
    expect(() => parseCheck(text)).toThrow(CheckSyntaxError);
  });

  it("says what is wrong", () => {
    expect(() => parseCheck("role:a role:b")).toThrow(
      'cannot parse "role:a role:b": it does not reduce to one check (left with role:a, role:b)',
    );
    expect(() => parseCheck("admin")).toThrow('"admin" is not a check');
  });
});
