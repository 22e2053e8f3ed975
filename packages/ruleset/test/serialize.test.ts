import { describe, expect, it } from "vitest";
import YAML from "yaml";
import {
  canonicalCost,
  canonicalLevel,
  canonicalizeRuleSet,
  parseRuleSet,
  parseRuleSetJson,
  parseRuleSetYaml,
  toJson,
  toStoredCost,
  toStoredLevel,
  toYaml,
  type RuleSetDocument,
} from "../src/index.js";
import { sampleRuleSet, scrambled, shuffled, uuid } from "./support/fixtures.js";

function parsed(text: string, format?: "json" | "yaml"): RuleSetDocument {
  const result = parseRuleSet(text, format);
  if (!result.ok) throw new Error(result.issues.map((i) => `${i.path}: ${i.message}`).join("\n"));
  return result.document;
}

describe("canonical JSON", () => {
  it("is 2-space indented, keys in a fixed order, with a trailing newline", () => {
    const text = toJson(sampleRuleSet());
    expect(text.endsWith("}\n")).toBe(true);
    expect(
      text.startsWith(
        '{\n  "format": "ratecard.ruleset",\n  "version": 1,\n  "revision": "42",\n  "modules": [\n',
      ),
    ).toBe(true);
    expect(Object.keys(JSON.parse(text))).toEqual([
      "format",
      "version",
      "revision",
      "modules",
      "groups",
      "services",
      "scripts",
    ]);
    const service = JSON.parse(text).services[0];
    expect(Object.keys(service)).toEqual(["id", "name", "mappings", "thresholds", "fields"]);
    expect(Object.keys(service.mappings[0])).toEqual([
      "id",
      "value",
      "type",
      "cost",
      "tenant_id",
      "group_id",
    ]);
    expect(Object.keys(service.thresholds[0])).toEqual([
      "id",
      "level",
      "type",
      "cost",
      "tenant_id",
      "group_id",
    ]);
  });

  it("re-serializes byte-identically after parsing", () => {
    const first = toJson(sampleRuleSet());
    const second = toJson(parsed(first));
    expect(second).toBe(first);
    expect(toJson(parsed(second))).toBe(first);
  });

  it("gives the same bytes whatever the order of entries and keys", () => {
    const reference = toJson(sampleRuleSet());
    for (let seed = 1; seed <= 20; seed++) {
      const shuffledDocument = scrambled(sampleRuleSet(), seed);
      // Serializing directly and parsing a scrambled text both land on the same bytes.
      expect(toJson(shuffledDocument)).toBe(reference);
      expect(toJson(parsed(JSON.stringify(shuffledDocument)))).toBe(reference);
    }
  });

  it("orders services, fields, groups and scripts by name; mappings by value, tenant, group; thresholds by level as numbers", () => {
    const document = parsed(toJson(scrambled(sampleRuleSet(), 7)));
    expect(document.services.map((s) => s.name)).toEqual(["compute", "volume.size"]);
    expect(document.services[0]!.fields.map((f) => f.name)).toEqual(["flavor", "image_id"]);
    expect(document.groups.map((g) => g.name)).toEqual(["gold", "silver"]);
    expect(document.services[0]!.fields[0]!.mappings.map((m) => [m.value, m.tenant_id])).toEqual([
      ["m1.large", null],
      ["m1.small", null],
      ["m1.small", "project-b"],
    ]);
    // "10" < "100.5" numerically, and "9" < "10" although "9" > "10" as text.
    const withNine = sampleRuleSet();
    withNine.services[0]!.thresholds.push({
      id: uuid(112),
      level: "9",
      type: "flat",
      cost: "1",
      tenant_id: null,
      group_id: null,
    });
    expect(canonicalizeRuleSet(withNine).services[0]!.thresholds.map((t) => t.level)).toEqual([
      "9",
      "10",
      "100.5",
    ]);
  });

  it("writes decimals in their shortest exact form, and keeps every digit", () => {
    const document = sampleRuleSet();
    const mapping = document.services[0]!.fields[0]!.mappings[0]!;
    mapping.cost = "123456789.1234567890000000000000000000";
    document.services[0]!.thresholds[0]!.level = "10.00000000";
    const text = toJson(document);
    expect(text).toContain('"cost": "123456789.123456789"');
    expect(text).toContain('"level": "10"');
    expect(text).toContain('"cost": "0.00000001"');
    expect(text).toContain('"cost": "0.1234567890123456789012345678"');
    expect(text).toContain('"level": "0.00000001"');
    const again = parsed(text);
    expect(again.services[0]!.fields[0]!.mappings.map((m) => m.cost)).toContain(
      "123456789.123456789",
    );
  });

  it("accepts any decimal text and writes it canonical: 0.50, 5E-1 and 0.5 are one cost", () => {
    const texts = ["0.50", "5E-1", "0.5", "+0.5000000000000000000000000000", " 0.5 "].map(
      (cost) => {
        const document = sampleRuleSet();
        document.services[0]!.mappings[0]!.cost = cost;
        return toJson(parsed(JSON.stringify(document)));
      },
    );
    expect(new Set(texts).size).toBe(1);
    expect(texts[0]).toContain('"cost": "0.5"');
  });
});

describe("YAML", () => {
  it("has the same content as the JSON, in the same key order", () => {
    const yaml = toYaml(sampleRuleSet());
    const json = toJson(sampleRuleSet());
    expect(YAML.parse(yaml)).toEqual(JSON.parse(json));
    expect(JSON.stringify(YAML.parse(yaml), null, 2) + "\n").toBe(json);
    expect(
      yaml.startsWith('format: ratecard.ruleset\nversion: 1\nrevision: "42"\nmodules:\n'),
    ).toBe(true);
  });

  it("quotes decimals and writes script data as a literal block", () => {
    const yaml = toYaml(sampleRuleSet());
    expect(yaml).toContain('cost: "0.01"');
    expect(yaml).toContain('level: "10"');
    expect(yaml).toMatch(/data: \|\n {6}import decimal\n/);
  });

  it("parses back to the same document, and YAML and JSON convert both ways byte-identically", () => {
    const json = toJson(sampleRuleSet());
    const yaml = toYaml(sampleRuleSet());
    expect(toJson(parsed(yaml, "yaml"))).toBe(json);
    expect(toYaml(parsed(json, "json"))).toBe(yaml);
    expect(toYaml(parsed(yaml))).toBe(yaml);
    // Format detection: JSON starts with "{".
    expect(parsed(json)).toEqual(parsed(yaml));
  });

  it("keeps strings that look like other YAML types, and awkward script text, exactly", () => {
    const document = sampleRuleSet();
    const awkward = [
      "true",
      "null",
      "yes",
      "0.5",
      "1e3",
      "~",
      " leading space",
      "trailing space ",
      "a: b",
      "- dash",
      "#hash",
      "x".repeat(200),
      "tab\there",
      "",
    ];
    document.services[0]!.fields[0]!.mappings = awkward
      .filter((value) => value !== "")
      .map((value, i) => ({
        id: uuid(500 + i),
        value,
        type: "flat" as const,
        cost: "1",
        tenant_id: value,
        group_id: null,
      }));
    document.scripts = awkward.map((data, i) => ({
      id: uuid(600 + i),
      name: `script ${i}: ${data.slice(0, 10)}`,
      data: `${data}\n\n  indented\r\nwindows line\n\n\n`,
    }));
    const yaml = toYaml(document);
    const back = parsed(yaml, "yaml");
    expect(toJson(back)).toBe(toJson(document));
  });

  it("parses with YAML 1.2's core schema: yes is a string, not a boolean", () => {
    const yaml = toYaml(sampleRuleSet()).replace("name: gold", "name: yes");
    expect(parsed(yaml).groups.map((g) => g.name)).toContain("yes");
  });
});

describe("parse errors", () => {
  it("reports text that is not JSON or YAML", () => {
    const json = parseRuleSetJson('{"format": ');
    expect(json.ok).toBe(false);
    if (!json.ok) expect(json.issues[0]!.message).toMatch(/^not JSON: /);
    const yaml = parseRuleSetYaml("format: [unclosed\n");
    expect(yaml.ok).toBe(false);
    if (!yaml.ok) expect(yaml.issues[0]!.message).toMatch(/^not YAML: line \d+, column \d+: /);
  });

  it("refuses duplicate keys in YAML", () => {
    const result = parseRuleSetYaml("format: ratecard.ruleset\nversion: 1\nversion: 1\n");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues[0]!.message).toMatch(/not YAML: line 3/);
  });

  it("refuses a number where a decimal string is expected, in YAML as in JSON", () => {
    const yaml = toYaml(sampleRuleSet()).replace('cost: "0.01"', "cost: 0.01");
    const result = parseRuleSetYaml(yaml);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues).toEqual([
        {
          path: "services[0].mappings[0].cost",
          message:
            'not a decimal string: write it in quotes ("0.5"), a number is read as a binary float',
        },
      ]);
    }
  });
});

describe("exact decimals", () => {
  /** A random decimal with up to `integer` and `fraction` digits (seeded, so failures repeat). */
  function randomDecimals(count: number, integer: number, fraction: number, seed: number) {
    const digits = shuffled([..."0123456789".repeat(40)], seed).join("");
    return Array.from({ length: count }, (_, i) => {
      const at = (i * 37) % 300;
      const int = digits.slice(at, at + 1 + (i % integer)).replace(/^0+(?=\d)/, "");
      const frac = digits.slice(at + 13, at + 13 + (i % (fraction + 1)));
      return `${i % 3 === 0 ? "-" : ""}${int}${frac ? `.${frac}` : ""}`;
    });
  }

  it("survive the stored fixed-digit form and JSON and YAML, digit for digit", () => {
    const costs = randomDecimals(500, 12, 28, 11);
    const levels = randomDecimals(500, 12, 8, 12);
    for (const cost of costs) {
      const canonical = canonicalCost(cost);
      if (!canonical.ok) throw new Error(`${cost}: ${canonical.reason}`);
      // Shortest form: no trailing zeros, no exponent, the same value.
      expect(canonical.value).not.toMatch(/\.\d*0$|e/i);
      expect(canonicalCost(toStoredCost(canonical.value))).toEqual(canonical);
    }
    for (const level of levels) {
      const canonical = canonicalLevel(level);
      if (!canonical.ok) throw new Error(`${level}: ${canonical.reason}`);
      expect(canonicalLevel(toStoredLevel(canonical.value))).toEqual(canonical);
    }
    const document = sampleRuleSet();
    document.services[0]!.fields[0]!.mappings = costs.map((cost, i) => ({
      id: uuid(10_000 + i),
      value: `v${i}`,
      type: "flat" as const,
      cost,
      tenant_id: null,
      group_id: null,
    }));
    document.services[0]!.fields[0]!.thresholds = [
      ...new Set(levels.map((level) => (canonicalLevel(level) as { value: string }).value)),
    ].map((level, i) => ({
      id: uuid(20_000 + i),
      level,
      type: "flat" as const,
      cost: "1",
      tenant_id: null,
      group_id: null,
    }));
    const json = toJson(document);
    const fromJson = parsed(json);
    const fromYaml = parsed(toYaml(document));
    expect(toJson(fromYaml)).toBe(json);
    const written = new Set(fromJson.services[0]!.fields[0]!.mappings.map((m) => m.cost));
    for (const cost of costs) {
      const canonical = canonicalCost(cost);
      expect(canonical.ok && written.has(canonical.value)).toBe(true);
    }
  });

  it("keeps 0.00000001, 123456789.123456789 and 28 fractional digits as written", () => {
    for (const cost of [
      "0.00000001",
      "123456789.123456789",
      "0.0000000000000000000000000001",
      "0.1234567890123456789012345678",
      "999999999999.9999999999999999999999999999",
    ]) {
      expect(canonicalCost(cost)).toEqual({ ok: true, value: cost });
      expect(canonicalCost(toStoredCost(cost))).toEqual({ ok: true, value: cost });
    }
    expect(toStoredCost("123456789.123456789")).toBe("123456789.1234567890000000000000000000");
    expect(canonicalCost("-0")).toEqual({ ok: true, value: "0" });
    expect(canonicalLevel("0.00000001")).toEqual({ ok: true, value: "0.00000001" });
    expect(canonicalLevel("0.000000001").ok).toBe(false);
  });
});
