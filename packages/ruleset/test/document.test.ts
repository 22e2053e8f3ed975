import { describe, expect, it } from "vitest";
import {
  formatIssue,
  RuleSetValidationError,
  toJson,
  validateRuleSet,
  type RuleSetIssue,
} from "../src/index.js";
import { ids, sampleRuleSet, uuid } from "./support/fixtures.js";

/** The sample as plain JSON data, to break at will. */
function raw(): any {
  return JSON.parse(toJson(sampleRuleSet()));
}

function issues(value: unknown): string[] {
  const result = validateRuleSet(value);
  if (result.ok) throw new Error("expected the document to be refused");
  return result.issues.map(formatIssue);
}

describe("validation", () => {
  it("accepts the sample, and the canonical export of it", () => {
    expect(validateRuleSet(sampleRuleSet()).ok).toBe(true);
    expect(validateRuleSet(raw()).ok).toBe(true);
  });

  it("accepts the smallest document: format and version; lists and revision default", () => {
    const result = validateRuleSet({ format: "ratecard.ruleset", version: 1 });
    expect(result).toEqual({
      ok: true,
      document: {
        format: "ratecard.ruleset",
        version: 1,
        revision: "",
        modules: [],
        groups: [],
        services: [],
        scripts: [],
      },
    });
  });

  it("names the JSON path of each malformed entry, all at once", () => {
    const document = raw();
    document.services[0].fields[0].mappings[2].cost = "abc";
    document.services[0].thresholds[1].level = "1.123456789";
    document.services[0].mappings[0].cost = 0.01;
    document.services[0].fields[1].mappings[0].type = "tiered";
    document.groups[1].id = "not-a-uuid";
    document.scripts[0].data = 12;
    document.modules[0].priority = 1.5;
    document.modules[1].enabled = "yes";
    delete document.services[1].name;
    document.services[0].fields[0].mappings[1].cots = "1";
    expect(issues(document)).toEqual([
      "modules[0].priority: expected an integer, got a number",
      "modules[1].enabled: expected true or false, got a string",
      "groups[1].id: not a UUID",
      'services[0].mappings[0].cost: not a decimal string: write it in quotes ("0.5"), a number is read as a binary float',
      "services[0].thresholds[1].level: more than 8 fractional digits cannot be stored exactly",
      "services[0].fields[0].mappings[1].cots: unknown key",
      "services[0].fields[0].mappings[2].cost: not a decimal",
      'services[0].fields[1].mappings[0].type: must be "flat" or "rate"',
      "services[1].name: required",
      "scripts[0].data: expected a string, got a number",
    ]);
  });

  it("checks the format tag and version", () => {
    expect(issues({ format: "cloudkitty", version: 3 })).toEqual([
      'format: must be "ratecard.ruleset"',
      "version: unsupported version 3: this Ratecard reads versions 1 and 2",
    ]);
    expect(issues({})).toEqual(["format: required", "version: required"]);
    expect(issues([])).toEqual(["(document): expected an object, got an array"]);
  });

  it("refuses decimals Ratecard cannot store exactly", () => {
    const document = raw();
    document.services[0].mappings[0].cost = "0.12345678901234567890123456789";
    document.services[0].mappings[1].cost = "1000000000000";
    document.services[0].thresholds[0].cost = "NaN";
    document.services[0].thresholds[1].cost = "Infinity";
    expect(issues(document)).toEqual([
      "services[0].mappings[0].cost: more than 28 fractional digits cannot be stored exactly",
      "services[0].mappings[1].cost: out of range: at most 12 integer digits",
      "services[0].thresholds[0].cost: not a decimal",
      "services[0].thresholds[1].cost: not a decimal",
    ]);
  });

  it("keeps exact decimals: 0.00000001, 123456789.123456789 and 28 fractional digits", () => {
    const document = raw();
    const costs = [
      "0.00000001",
      "123456789.123456789",
      "0.0000000000000000000000000001",
      "999999999999.9999999999999999999999999999",
      "-0.0000000000000000000000000001",
    ];
    document.services[0].fields[0].mappings = costs.map((cost, i) => ({
      id: uuid(300 + i),
      value: `v${i}`,
      type: "flat",
      cost,
    }));
    document.services[0].fields[0].thresholds = [
      { id: uuid(400), level: "0.00000001", type: "flat", cost: "1" },
      { id: uuid(401), level: "123456789.12345678", type: "flat", cost: "1" },
    ];
    const result = validateRuleSet(document);
    if (!result.ok) throw new Error(result.issues.map(formatIssue).join("\n"));
    const field = result.document.services[0]!.fields[0]!;
    expect(field.mappings.map((m) => m.cost)).toEqual(costs);
    expect(field.thresholds.map((t) => t.level)).toEqual(["0.00000001", "123456789.12345678"]);
  });

  it("a field mapping needs a value; a service mapping has none", () => {
    const document = raw();
    document.services[0].fields[0].mappings[0].value = "";
    delete document.services[0].fields[0].mappings[1].value;
    document.services[0].fields[0].mappings[2].value = null;
    document.services[0].mappings[0].value = "m1.small";
    expect(issues(document)).toEqual([
      "services[0].mappings[0].value: a service mapping has no value: it prices the whole service",
      "services[0].fields[0].mappings[0].value: a field mapping needs a value",
      "services[0].fields[0].mappings[1].value: a field mapping needs a value",
      "services[0].fields[0].mappings[2].value: a field mapping needs a value",
    ]);
  });

  it('reads a service mapping\'s "" or absent value as no value', () => {
    const document = raw();
    document.services[0].mappings[0].value = "";
    delete document.services[0].mappings[1].value;
    const result = validateRuleSet(document);
    expect(result.ok && result.document.services[0]!.mappings.map((m) => m.value)).toEqual([
      null,
      null,
    ]);
  });

  it("lower-cases ids and fills absent tenant and group with null", () => {
    const document = raw();
    document.groups[0].id = ids.gold.toUpperCase();
    delete document.services[0].mappings[0].tenant_id;
    delete document.services[0].mappings[0].group_id;
    const result = validateRuleSet(document);
    if (!result.ok) throw new Error(result.issues.map(formatIssue).join("\n"));
    expect(result.document.groups[0]!.id).toBe(ids.gold);
    expect(result.document).toEqual(validateRuleSet(raw()).ok && sampleRuleSetCanonical());
  });
});

function sampleRuleSetCanonical() {
  const result = validateRuleSet(sampleRuleSet());
  return result.ok ? result.document : undefined;
}

describe("references and Ratecard's uniqueness rules", () => {
  it("a rule's group must be a group of the document", () => {
    const document = raw();
    document.services[0].fields[0].mappings[0].group_id = uuid(999);
    document.services[0].thresholds[1].group_id = uuid(998);
    expect(issues(document)).toEqual([
      "services[0].thresholds[1].group_id: no group with this id in groups",
      "services[0].fields[0].mappings[0].group_id: no group with this id in groups",
    ]);
  });

  it("ids are unique per kind (fields and rules across the whole document)", () => {
    const document = raw();
    document.groups.push({ id: document.groups[0].id, name: "bronze" });
    document.services[1].id = document.services[0].id;
    document.services[1].fields[0].id = document.services[0].fields[0].id;
    document.services[0].fields[1].mappings[0].id = document.services[0].mappings[0].id;
    document.scripts.push({ ...document.scripts[0], name: "other" });
    // A mapping and a threshold may share an id: they are different tables.
    document.services[0].thresholds[0].id = document.services[0].mappings[1].id;
    expect(issues(document)).toEqual([
      "groups[2].id: duplicate id: also groups[0].id",
      "scripts[1].id: duplicate id: also scripts[0].id",
      "services[0].fields[1].mappings[0].id: duplicate id: also services[0].mappings[0].id",
      "services[1].id: duplicate id: also services[0].id",
      "services[1].fields[0].id: duplicate id: also services[0].fields[0].id",
    ]);
  });

  it("names are unique: services, groups, scripts, and fields within their service", () => {
    const document = raw();
    document.groups[1].name = "gold";
    document.services[1].name = "compute";
    document.services[0].fields[1].name = "flavor";
    // The same field name under another service is fine.
    document.services[1].fields[0].name = "flavor";
    document.scripts.push({ ...document.scripts[0], id: uuid(31) });
    expect(issues(document)).toEqual([
      'groups[1].name: duplicate name "gold": also groups[0].name',
      'scripts[1].name: duplicate name "discount": also scripts[0].name',
      'services[0].fields[1].name: duplicate name "flavor": also services[0].fields[0].name',
      'services[1].name: duplicate name "compute": also services[0].name',
    ]);
  });

  it('no two identical mappings: same parent, value, tenant and group (null tenant = "")', () => {
    const document = raw();
    const flavor = document.services[0].fields[0];
    // m1.small / no tenant / silver exists as mappings[1] (sorted): the same with another cost.
    flavor.mappings.push({ ...flavor.mappings[1], id: uuid(900), cost: "5" });
    // Tenant "" collides with no tenant, as in the database's COALESCE index.
    flavor.mappings.push({ ...flavor.mappings[0], id: uuid(901), tenant_id: "" });
    // Two service mappings without tenant or group collide whatever their (absent) value.
    document.services[0].mappings.push({
      ...document.services[0].mappings[0],
      id: uuid(902),
      value: "",
    });
    // Differences that keep rules apart: the tenant, the group, the parent, the type does not count.
    flavor.mappings.push({ ...flavor.mappings[1], id: uuid(903), tenant_id: "project-c" });
    flavor.mappings.push({ ...flavor.mappings[1], id: uuid(904), group_id: ids.gold });
    document.services[0].fields[1].mappings.push({ ...flavor.mappings[1], id: uuid(905) });
    expect(issues(document)).toEqual([
      "services[0].mappings[2]: the same rule as services[0].mappings[0] (same parent, value, tenant and group)",
      "services[0].fields[0].mappings[3]: the same rule as services[0].fields[0].mappings[1] (same parent, value, tenant and group)",
      "services[0].fields[0].mappings[4]: the same rule as services[0].fields[0].mappings[0] (same parent, value, tenant and group)",
    ]);
  });

  it("no two identical thresholds: same parent, level as a number, tenant and group", () => {
    const document = raw();
    const thresholds = document.services[0].thresholds;
    thresholds.push({ ...thresholds[0], id: uuid(910), level: "10.000", type: "flat" });
    thresholds.push({ ...thresholds[0], id: uuid(911), level: "10", tenant_id: "p" });
    expect(issues(document)).toEqual([
      "services[0].thresholds[2]: the same rule as services[0].thresholds[0] (same parent, level, tenant and group)",
    ]);
  });

  it("reports structural and referential errors in one answer", () => {
    const document = raw();
    document.services[0].fields[0].mappings[0].cost = "x";
    document.services[0].fields[0].mappings[0].group_id = uuid(999);
    document.groups[1].name = "gold";
    expect(issues(document)).toEqual([
      "services[0].fields[0].mappings[0].cost: not a decimal",
      'groups[1].name: duplicate name "gold": also groups[0].name',
      "services[0].fields[0].mappings[0].group_id: no group with this id in groups",
    ]);
  });

  it("RuleSetValidationError lists every issue in its message", () => {
    const list: RuleSetIssue[] = [
      { path: "services[0].name", message: "required" },
      { path: "groups[1].id", message: "not a UUID" },
    ];
    const error = new RuleSetValidationError(list);
    expect(error.message).toBe(
      "Invalid rule set (2 errors):\nservices[0].name: required\ngroups[1].id: not a UUID",
    );
    expect(error.issues).toBe(list);
  });
});

describe("the lifecycle (version 2)", () => {
  const v2 = () => ({ ...raw(), version: 2 });
  const firstMapping = (document: ReturnType<typeof raw>) => document.services[0].mappings[0];

  it("reads dates as the REST API does and writes them canonical; a date alone as end is 23:59:59", () => {
    const document = v2();
    Object.assign(firstMapping(document), {
      start: "2027-01-01T01:00:00+01:00",
      end: "2027-12-31",
      name: "  compute-base  ",
      description: "base price",
    });
    const result = validateRuleSet(document);
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(result.document.version).toBe(2);
    expect(result.document.services[0]!.mappings[0]).toMatchObject({
      start: "2027-01-01T00:00:00",
      end: "2027-12-31T23:59:59",
      name: "compute-base",
      description: "base price",
    });
    // Key order: the rule's keys, then start, end, name, description.
    expect(Object.keys(result.document.services[0]!.mappings[0]!)).toEqual([
      "id",
      "value",
      "type",
      "cost",
      "tenant_id",
      "group_id",
      "start",
      "end",
      "name",
      "description",
    ]);
  });

  it("a version-1 document keeps its version and bytes, and refuses lifecycle keys", () => {
    const result = validateRuleSet(raw());
    expect(result.ok && toJson(result.document)).toBe(toJson(sampleRuleSet()));
    const document = raw();
    Object.assign(firstMapping(document), { end: "2027-01-01" });
    document.scripts[0].description = "x";
    expect(issues(document)).toEqual([
      "scripts[0].description: not in a version-1 document (write version: 2)",
      "services[0].mappings[0].end: not in a version-1 document (write version: 2)",
    ]);
  });

  it("names the path of a bad date, an end before its start, a long name, a duplicate rule name", () => {
    const document = v2();
    Object.assign(firstMapping(document), { start: "2027-02-30", name: "x".repeat(33) });
    Object.assign(document.services[0].mappings[1], {
      start: "2027-01-02",
      end: "2027-01-01",
      name: "same",
    });
    Object.assign(document.services[0].fields[0].mappings[0], { name: "same" });
    expect(issues(document)).toEqual([
      "services[0].mappings[0].start: not a date: expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (UTC)",
      "services[0].mappings[0].name: at most 32 characters",
      "services[0].mappings[1].end: before start (2027-01-02T00:00:00)",
      'services[0].fields[0].mappings[0].name: duplicate name "same": also services[0].mappings[1].name',
    ]);
  });
});
