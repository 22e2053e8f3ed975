import YAML, { LineCounter } from "yaml";
import {
  canonicalizeRuleSet,
  validateRuleSet,
  type RuleSetDocument,
  type RuleSetValidation,
} from "./document.js";

export type RuleSetFormat = "json" | "yaml";

/**
 * The canonical JSON text: stable order, fixed key order, 2-space indent, a trailing newline. The
 * same rule set always gives the same bytes.
 */
export function toJson(document: RuleSetDocument): string {
  return `${JSON.stringify(canonicalizeRuleSet(document), null, 2)}\n`;
}

/**
 * The same content in YAML 1.2: the same key order; multi-line script data as literal blocks;
 * strings that would read as another type ("0.5", "true", "null") quoted; no line folding.
 */
export function toYaml(document: RuleSetDocument): string {
  return YAML.stringify(canonicalizeRuleSet(document), {
    indent: 2,
    lineWidth: 0,
    minContentWidth: 0,
    aliasDuplicateObjects: false,
  });
}

export function serializeRuleSet(document: RuleSetDocument, format: RuleSetFormat): string {
  return format === "yaml" ? toYaml(document) : toJson(document);
}

/** JSON text -> a validated, canonical document, or every error with its JSON path. */
export function parseRuleSetJson(text: string): RuleSetValidation {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      issues: [{ path: "(document)", message: `not JSON: ${(error as Error).message}` }],
    };
  }
  return validateRuleSet(value);
}

/** YAML text -> a validated, canonical document, or every error with its JSON path. */
export function parseRuleSetYaml(text: string): RuleSetValidation {
  // One document, YAML 1.2's core schema (so `yes` stays a string), duplicate keys refused.
  const lines = new LineCounter();
  const parsed = YAML.parseDocument(text, {
    uniqueKeys: true,
    prettyErrors: false,
    lineCounter: lines,
  });
  const problems = [...parsed.errors, ...parsed.warnings];
  if (problems.length > 0) {
    return {
      ok: false,
      issues: problems.map((problem) => {
        const at = lines.linePos(problem.pos[0]);
        const where = at ? `line ${at.line}, column ${at.col}: ` : "";
        return { path: "(document)", message: `not YAML: ${where}${firstLine(problem.message)}` };
      }),
    };
  }
  return validateRuleSet(parsed.toJS({ maxAliasCount: 100 }));
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

/**
 * Either format. Without `format`, text whose first non-blank character is `{` is JSON, anything
 * else YAML.
 */
export function parseRuleSet(text: string, format?: RuleSetFormat): RuleSetValidation {
  const chosen = format ?? (/^\s*\{/.test(text) ? "json" : "yaml");
  return chosen === "json" ? parseRuleSetJson(text) : parseRuleSetYaml(text);
}
