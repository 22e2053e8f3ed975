import { describe, expect, it } from "vitest";
import {
  planRuleSet,
  validateRuleSet,
  ZRuleSetDocumentOutput,
  ZRuleSetPlanOutput,
  type RuleSetDocument,
} from "../src/index.js";
import { sampleRuleSet } from "./support/fixtures.js";

describe("output schemas", () => {
  it("describe the canonical document and a plan exactly (strict parse leaves them unchanged)", () => {
    const result = validateRuleSet(sampleRuleSet());
    if (!result.ok) throw new Error("sample is invalid");
    const document = result.document;
    expect(ZRuleSetDocumentOutput.parse(document)).toEqual(document);

    const empty: RuleSetDocument = { ...document, groups: [], services: [], scripts: [] };
    const changed = structuredClone(document);
    changed.services[0]!.mappings[0]!.cost = "9";
    const [moved] = changed.services[0]!.fields[0]!.mappings.splice(0, 1);
    changed.services[0]!.fields[1]!.mappings.push(moved!);
    for (const plan of [
      planRuleSet(empty, document),
      planRuleSet(document, empty),
      planRuleSet(document, changed),
    ]) {
      expect(ZRuleSetPlanOutput.parse(plan)).toEqual(plan);
    }
  });
});
