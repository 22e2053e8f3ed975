import { CheckSyntaxError, parseCheck, referencedRules } from "./check.js";
import type { Check } from "./check.js";
import { evaluateCheck } from "./evaluate.js";
import type { Credentials, Target } from "./evaluate.js";

export interface Policy {
  /** true when `rule` allows these credentials on this target. A rule the policy does not define is denied. */
  enforce(rule: string, credentials: Credentials, target?: Target): boolean;
  /** Every rule name and its check string, defaults merged with the file (for docs/debug). */
  rules(): ReadonlyMap<string, string>;
}

/** A rule set that cannot be enforced: a check string that does not parse, or rules that refer to each other in a cycle. */
export class PolicyError extends Error {
  override name = "PolicyError";
  constructor(
    message: string,
    /** the rules at fault: the one that does not parse, or every rule along a cycle */
    readonly rules: readonly string[],
  ) {
    super(message);
  }
}

/**
 * A policy from default rules with overrides on top (an override replaces the default of the
 * same name). Throws `PolicyError` for a check string that does not parse and for a cycle of
 * `rule:` references: oslo.policy only logs both, then denies or overflows its stack.
 */
export function createPolicy(
  defaults: Record<string, string>,
  overrides: Record<string, string> = {},
): Policy {
  const texts = new Map<string, string>([
    ...Object.entries(defaults),
    ...Object.entries(overrides),
  ]);
  const checks = new Map<string, Check>();
  for (const [name, text] of texts) {
    try {
      checks.set(name, parseCheck(text));
    } catch (error) {
      if (!(error instanceof CheckSyntaxError)) throw error;
      throw new PolicyError(`cannot parse rule "${name}": ${error.message}`, [name]);
    }
  }
  const cycle = findCycle(checks);
  if (cycle !== undefined) {
    throw new PolicyError(
      `rule "${cycle[0]}" refers to itself: ${cycle.map((name) => `"${name}"`).join(" -> ")}`,
      cycle.slice(0, -1),
    );
  }
  const lookupRule = (name: string): Check | undefined => checks.get(name);
  return {
    enforce(rule, credentials, target = {}) {
      const check = checks.get(rule);
      if (check === undefined) return false;
      // oslo.policy copies oslo.context's `system_scope` to `system`, so `system:all` works.
      const systemScope = credentials["system_scope"];
      const effective = isPythonTruthy(systemScope)
        ? { ...credentials, system: systemScope }
        : credentials;
      return evaluateCheck(check, effective, target, lookupRule);
    },
    rules: () => new Map(texts),
  };
}

/** A cycle of `rule:` references as the names along it (first name repeated at the end). */
function findCycle(checks: ReadonlyMap<string, Check>): string[] | undefined {
  const finished = new Set<string>();
  const visit = (name: string, path: string[]): string[] | undefined => {
    const at = path.indexOf(name);
    if (at >= 0) return [...path.slice(at), name];
    const check = checks.get(name);
    if (finished.has(name) || check === undefined) return undefined;
    for (const next of referencedRules(check)) {
      const cycle = visit(next, [...path, name]);
      if (cycle !== undefined) return cycle;
    }
    finished.add(name);
    return undefined;
  };
  for (const name of checks.keys()) {
    const cycle = visit(name, []);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

function isPythonTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object" && value !== null) return Object.keys(value).length > 0;
  return Boolean(value);
}
