import { describe, expect, it } from "vitest";
import { createPolicy } from "../src/index.js";
import type { Credentials, Target } from "../src/index.js";

/** Whether the check string `text` allows `credentials` on `target`. */
function allows(text: string, credentials: Credentials, target: Target = {}): boolean {
  return createPolicy({ checked: text }).enforce("checked", credentials, target);
}

const admin = { roles: ["admin", "reader"], project_id: "p1", user_id: "u1", is_admin: true };
const reader = { roles: ["reader"], project_id: "p2", user_id: "u2", is_admin: false };
const nobody = {};

// Cases from oslo.policy's documentation and its tests (oslo_policy/tests/test_checks.py).
describe("oslo.policy examples", () => {
  it.each<[string, Credentials, Target, boolean]>([
    ["", nobody, {}, true],
    ["@", nobody, {}, true],
    ["!", admin, {}, false],
    ["role:admin", admin, {}, true],
    ["role:admin", reader, {}, false],
    ["role:sPaM", { roles: ["SpAm"] }, {}, true],
    ["role:spam", { roles: [] }, {}, false],
    ["role:spam", nobody, {}, false],
    ["role:%(target.role.name)s", { roles: ["a", "b"] }, { "target.role.name": "a" }, true],
    ["role:%(target.role.name)s", { roles: ["a", "b"] }, { "target.role.name": "d" }, false],
    ["role:%(target.role.name)s", { roles: ["a"] }, { target: { role: { name: "a" } } }, false],
    ["name:%(name)s", nobody, { name: "spam" }, false],
    ["name:%(name)s", { name: "ham" }, { name: "spam" }, false],
    ["name:%(name)s", { name: "spam" }, { name: "spam" }, true],
    ["name:%(name)s", { name: "spam" }, { name1: "spam" }, false],
    ["'spam':%(name)s", nobody, { name: "ham" }, false],
    ["'spam':%(name)s", nobody, { name: "spam" }, true],
    ["True:%(enabled)s", nobody, { enabled: false }, false],
    ["True:%(enabled)s", nobody, { enabled: true }, true],
    ["a.b.c.d:APPLES", { a: { b: { c: { d: "APPLES" } } } }, {}, true],
    ["o.t:ORANGES", { a: "APPLES", o: { t: "ORANGES" } }, {}, true],
    ["o.v:ORANGES", { a: "APPLES", o: { t: "ORANGES" } }, {}, false],
    ["q.v:APPLES", { a: "APPLES", o: { t: "ORANGES" } }, {}, false],
    ["a.b.c.d:APPLES", { a: { b: { c: { d: ["APPLES"] } } } }, {}, true],
    ["a.b.c.d:APPLES", { a: { b: { c: { d: ["Bananas", "APPLES"] } } } }, {}, true],
    [
      "a.b.c.d:APPLES",
      { a: { b: [{ a: "" }, { c: { d: ["BANANAS", "APPLES"] } }, {}] } },
      {},
      true,
    ],
    ["a.b.c.d:APPLES", { a: { b: { c: { d: ["PEACHES", "PEARS"] } } } }, {}, false],
    ["token.roles.name:role1", { token: { roles: [{ name: "role1" }, { name: "r2" }] } }, {}, true],
    ["token.roles.name:missing", { token: { roles: [{ name: "role1" }] } }, {}, false],
    ["is_admin:True", admin, {}, true],
    ["is_admin:True", reader, {}, false],
    ["project_id:%(project_id)s", reader, { project_id: "p2" }, true],
    ["project_id:%(project_id)s", reader, { project_id: "p1" }, false],
    ["project_id:%(project_id)s", reader, {}, false],
    ["user_id:%(user_id)s or role:admin", admin, {}, true],
    ["not role:admin", reader, {}, true],
    ["not role:admin", admin, {}, false],
    ["role:admin and not role:reader", admin, {}, false],
    ["role:reader or role:admin and is_admin:True", reader, {}, true],
    ["(role:reader or role:admin) and is_admin:True", reader, {}, false],
  ])("%j for %j on %j is %s", (text, credentials, target, expected) => {
    expect(allows(text, credentials, target)).toBe(expected);
  });
});

describe("values compared as Python's str() prints them", () => {
  it("compares is_admin:True with the boolean, case-sensitively", () => {
    expect(allows("is_admin:True", { is_admin: true })).toBe(true);
    expect(allows("is_admin:true", { is_admin: true })).toBe(false);
    expect(allows("is_admin:True", { is_admin: "True" })).toBe(true);
    expect(allows("is_admin:False", { is_admin: false })).toBe(true);
  });

  it("prints null as None and integers as digits", () => {
    expect(allows("domain_id:None", { domain_id: null })).toBe(true);
    expect(allows("count:%(n)s", { count: 3 }, { n: 3 })).toBe(true);
    expect(allows("42:%(n)s", nobody, { n: 42 })).toBe(true);
    expect(allows("None:%(x)s", nobody, { x: null })).toBe(true);
  });

  it("never matches a target value that is a list or an object, nor an absent credential", () => {
    expect(allows("project_id:%(p)s", { project_id: "p1" }, { p: ["p1"] })).toBe(false);
    expect(allows("project_id:%(p)s", { project_id: "p1" }, { p: undefined })).toBe(false);
    expect(allows("project_id:None", nobody, {})).toBe(false);
  });

  it("does not walk a path through a string", () => {
    expect(allows("a.b:x", { a: "x" })).toBe(false);
  });

  it("substitutes several keys and %% into one match", () => {
    expect(allows("label:%(a)s-%%-%(b)s", { label: "x-%-y" }, { a: "x", b: "y" })).toBe(true);
  });

  it("skips role entries that are not strings", () => {
    expect(allows("role:admin", { roles: [null, 3, "Admin"] })).toBe(true);
    expect(allows("role:admin", { roles: "admin" })).toBe(false);
  });
});

describe("oslo.context's system_scope", () => {
  it("is visible to checks as system too", () => {
    expect(allows("system:all", { system_scope: "all" })).toBe(true);
    expect(allows("system_scope:all", { system_scope: "all" })).toBe(true);
    expect(allows("system:all", { system_scope: "" })).toBe(false);
  });
});
