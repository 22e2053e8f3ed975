import { describe, expect, it } from "vitest";
import {
  CLOUDKITTY_DEFAULT_RULES,
  DEFAULT_RULES,
  RATECARD_DEFAULT_RULES,
  RULE_DESCRIPTIONS,
  createPolicy,
} from "../src/index.js";

const policy = createPolicy(DEFAULT_RULES);
const admin = { roles: ["admin", "member", "reader"], project_id: "p1" };
const reader = { roles: ["reader"], project_id: "p2" };
const member = { roles: ["member"], project_id: "p3" };
const anyone = { roles: [], project_id: "p4" };

describe("CloudKitty's defaults", () => {
  it.each<[string, Record<string, boolean>]>([
    ["rating:module_config", { admin: true, reader: false, member: false, anyone: false }],
    ["rating:list_modules", { admin: true, reader: false, member: false, anyone: false }],
    ["rating:get_module", { admin: true, reader: false, member: false, anyone: false }],
    ["rating:update_module", { admin: true, reader: false, member: false, anyone: false }],
    ["rating:quote", { admin: true, reader: true, member: true, anyone: true }],
    ["info:list_metrics_info", { admin: true, reader: true, member: true, anyone: true }],
    ["info:get_metric_info", { admin: true, reader: true, member: true, anyone: true }],
    ["info:list_services_info", { admin: true, reader: true, member: true, anyone: true }],
    ["info:get_service_info", { admin: true, reader: true, member: true, anyone: true }],
    ["info:get_config", { admin: true, reader: true, member: true, anyone: true }],
    ["context_is_admin", { admin: true, reader: false, member: false, anyone: false }],
  ])("%s", (rule, expected) => {
    const actual = Object.fromEntries(
      Object.entries({ admin, reader, member, anyone }).map(([who, credentials]) => [
        who,
        policy.enforce(rule, credentials),
      ]),
    );
    expect(actual).toEqual(expected);
  });

  it("lets a project reader read its own project's summary, and an admin any", () => {
    expect(policy.enforce("summary:get_summary", reader, { project_id: "p2" })).toBe(true);
    expect(policy.enforce("summary:get_summary", reader, { project_id: "p1" })).toBe(false);
    expect(policy.enforce("summary:get_summary", admin, { project_id: "p2" })).toBe(true);
  });

  it("reads admin_or_owner as CloudKitty wrote it", () => {
    expect(policy.enforce("admin_or_owner", { is_admin: true })).toBe(true);
    expect(policy.enforce("admin_or_owner", { roles: ["admin"], is_admin_project: true })).toBe(
      true,
    );
    expect(policy.enforce("admin_or_owner", { roles: ["admin"], is_admin_project: false })).toBe(
      false,
    );
    expect(policy.enforce("admin_or_owner", reader, { project_id: "p2" })).toBe(true);
  });
});

describe("Ratecard's rules", () => {
  it.each<[string, Record<string, boolean>]>([
    ["ratecard:read_rules", { admin: true, reader: true, member: false, anyone: false }],
    ["ratecard:preview", { admin: true, reader: true, member: false, anyone: false }],
    ["ratecard:warnings", { admin: true, reader: true, member: false, anyone: false }],
    ["ratecard:manage_accounts", { admin: true, reader: false, member: false, anyone: false }],
    ["ratecard:list_metrics", { admin: true, reader: true, member: true, anyone: true }],
  ])("%s", (rule, expected) => {
    const actual = Object.fromEntries(
      Object.entries({ admin, reader, member, anyone }).map(([who, credentials]) => [
        who,
        policy.enforce(rule, credentials),
      ]),
    );
    expect(actual).toEqual(expected);
  });

  it("follow an operator who opens rating:module_config to members", () => {
    const opened = createPolicy(DEFAULT_RULES, { "rating:module_config": "role:member" });
    expect(opened.enforce("ratecard:read_rules", member)).toBe(true);
    expect(opened.enforce("ratecard:preview", member)).toBe(true);
  });

  it("are each described", () => {
    expect(Object.keys(RULE_DESCRIPTIONS).sort()).toEqual(
      Object.keys(RATECARD_DEFAULT_RULES).sort(),
    );
  });

  it("do not reuse a CloudKitty name", () => {
    const shared = Object.keys(RATECARD_DEFAULT_RULES).filter(
      (name) => name in CLOUDKITTY_DEFAULT_RULES,
    );
    expect(shared).toEqual([]);
    expect(Object.keys(DEFAULT_RULES)).toHaveLength(
      Object.keys(CLOUDKITTY_DEFAULT_RULES).length + Object.keys(RATECARD_DEFAULT_RULES).length,
    );
  });
});
