import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_RULES, PolicyFileError, loadPolicyFile } from "../src/index.js";

const directory = mkdtempSync(join(tmpdir(), "ratecard-policy-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let files = 0;
/** Writes `text` to a fresh file in the temporary directory and returns its path. */
function policyFile(text: string, name = `policy-${++files}.yaml`): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

/** The error loadPolicyFile throws for this file text. */
function loadError(text: string): PolicyFileError {
  const path = policyFile(text, "policy.yaml");
  try {
    loadPolicyFile(path, DEFAULT_RULES);
  } catch (error) {
    if (error instanceof PolicyFileError) return error;
    throw error;
  }
  throw new Error("the file loaded");
}

const reader = { roles: ["reader"], project_id: "p" };
const admin = { roles: ["admin"], project_id: "p" };

describe("loadPolicyFile", () => {
  it("keeps the defaults for an empty file, a comment-only file and an empty mapping", () => {
    for (const text of ["", "# nothing overridden\n", "{}\n", "---\n"]) {
      const policy = loadPolicyFile(policyFile(text), DEFAULT_RULES);
      expect(policy.enforce("rating:module_config", admin)).toBe(true);
      expect(policy.enforce("rating:module_config", reader)).toBe(false);
      expect(Object.fromEntries(policy.rules())).toEqual(DEFAULT_RULES);
    }
  });

  it("overrides a default and adds rules", () => {
    const policy = loadPolicyFile(
      policyFile(
        [
          "# Let readers manage the rating rules",
          '"rating:module_config": "role:admin or role:reader"',
          'auditors: "role:auditor"',
          "",
        ].join("\n"),
      ),
      DEFAULT_RULES,
    );
    expect(policy.enforce("rating:module_config", reader)).toBe(true);
    expect(policy.enforce("auditors", { roles: ["Auditor"] })).toBe(true);
    expect(policy.rules().get("rating:module_config")).toBe("role:admin or role:reader");
    expect(policy.rules().get("rating:list_modules")).toBe("role:admin");
  });

  it("reads JSON, which is YAML", () => {
    const policy = loadPolicyFile(
      policyFile('{\n  "rating:list_modules": "@",\n  "rating:quote": "!"\n}\n', "policy.json"),
      DEFAULT_RULES,
    );
    expect(policy.enforce("rating:list_modules", {})).toBe(true);
    expect(policy.enforce("rating:quote", admin)).toBe(false);
  });

  it("reads block scalars and unquoted check strings", () => {
    const policy = loadPolicyFile(
      policyFile(
        [
          "rating:module_config: >-",
          "  role:admin",
          "  or (role:reader and project_id:%(project_id)s)",
          "rating:quote: role:member",
          "",
        ].join("\n"),
      ),
      DEFAULT_RULES,
    );
    expect(policy.enforce("rating:module_config", reader, { project_id: "p" })).toBe(true);
    expect(policy.enforce("rating:module_config", reader, { project_id: "q" })).toBe(false);
    expect(policy.enforce("rating:quote", { roles: ["member"] })).toBe(true);
  });

  describe("refuses, naming the file and the line", () => {
    it("a check string that does not parse", () => {
      const error = loadError(
        ['"rating:quote": ""', "", "# comment", '"rating:module_config": "role:admin or"', ""].join(
          "\n",
        ),
      );
      expect(error.line).toBe(4);
      expect(error.message).toMatch(/policy\.yaml:4: cannot parse rule "rating:module_config": /);
    });

    it("a check string continued on later lines, at its first line", () => {
      const error = loadError(["a: '@'", "b: >-", "  role:x", "  and", ""].join("\n"));
      expect(error.message).toMatch(/policy\.yaml:2: cannot parse rule "b"/);
    });

    it("a value that is not a string", () => {
      expect(loadError('"a": "@"\n"b": true\n').message).toMatch(
        /policy\.yaml:2: rule "b" must be a check string/,
      );
      expect(loadError("a: '@'\nb:\n  - role:admin\n").line).toBe(3);
      expect(loadError("a:\n").message).toMatch(/policy\.yaml:1: rule "a" must be a check string/);
    });

    it("a name that is not a string", () => {
      expect(loadError("a: '@'\n12: '@'\n").message).toMatch(
        /policy\.yaml:2: a rule name must be a string/,
      );
    });

    it("a file that is not a mapping", () => {
      expect(loadError("# rules\n- role:admin\n").message).toMatch(
        /policy\.yaml:2: expected a mapping of rule names to check strings/,
      );
      expect(loadError("role:admin\n").line).toBe(1);
    });

    it("YAML that does not parse, and a name given twice", () => {
      expect(loadError('a: "@"\n  b: "@"\nc: "@"\n').message).toMatch(
        /^[^:]*policy\.yaml:2: invalid YAML/,
      );
      expect(loadError('a: "@"\nb: "@"\na: "!"\n').message).toMatch(/policy\.yaml:3: invalid YAML/);
    });

    it("a cycle of rule: references, at a rule of the file on it", () => {
      const error = loadError(
        ['"x": "@"', '"rating:module_config": "rule:ratecard:read_rules"', ""].join("\n"),
      );
      expect(error.line).toBe(2);
      expect(error.message).toContain(
        '"rating:module_config" -> "ratecard:read_rules" -> "rating:module_config"',
      );
    });

    it("a file that cannot be read, without a line", () => {
      const path = join(directory, "missing.yaml");
      expect(() => loadPolicyFile(path, DEFAULT_RULES)).toThrow(`${path}: cannot read`);
    });
  });
});
