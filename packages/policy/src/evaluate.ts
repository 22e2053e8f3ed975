import type { Check, TemplatePart } from "./check.js";

/** Who is asking, as oslo.context's `to_policy_values()` describes them. */
export type Credentials = Record<string, unknown>;
/** What is being acted on; `%(name)s` in a check string reads `target[name]`. */
export type Target = Record<string, unknown>;

/**
 * Evaluates a parsed check the way oslo.policy's check classes do. `lookupRule` returns the
 * check a `rule:NAME` refers to, or undefined when no rule has that name (which denies).
 */
export function evaluateCheck(
  check: Check,
  credentials: Credentials,
  target: Target,
  lookupRule: (name: string) => Check | undefined,
): boolean {
  const evaluate = (inner: Check): boolean => evaluateCheck(inner, credentials, target, lookupRule);
  switch (check.type) {
    case "true":
      return true;
    case "false":
      return false;
    case "not":
      return !evaluate(check.check);
    case "and":
      return check.checks.every(evaluate);
    case "or":
      return check.checks.some(evaluate);
    case "rule": {
      const referenced = lookupRule(check.name);
      return referenced !== undefined && evaluate(referenced);
    }
    case "role": {
      const wanted = fillTemplate(check.template, target);
      const roles = credentials["roles"];
      if (wanted === undefined || !Array.isArray(roles)) return false;
      const lowered = wanted.toLowerCase();
      return roles.some((role) => typeof role === "string" && role.toLowerCase() === lowered);
    }
    case "generic": {
      const wanted = fillTemplate(check.template, target);
      if (wanted === undefined) return false;
      if ("literal" in check.subject) return check.subject.literal === wanted;
      return pathMatches(credentials, check.subject.path, wanted);
    }
  }
}

/** Python's `str()` of a scalar; undefined for values no check string can equal. */
function pythonString(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "True" : "False";
  if (value === null) return "None";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number" && Number.isSafeInteger(value)) return value.toString();
  return undefined;
}

/** `match % target`; undefined when a named key is missing (oslo: KeyError, so the check fails). */
function fillTemplate(template: readonly TemplatePart[], target: Target): string | undefined {
  let filled = "";
  for (const part of template) {
    if ("text" in part) {
      filled += part.text;
      continue;
    }
    if (!Object.hasOwn(target, part.targetKey)) return undefined;
    const value = pythonString(target[part.targetKey]);
    if (value === undefined) return undefined;
    filled += value;
  }
  return filled;
}

/** oslo's `GenericCheck._find_in_dict`: walk the path; a list matches when any element does. */
function pathMatches(value: unknown, path: readonly string[], wanted: string): boolean {
  const [key, ...rest] = path;
  if (key === undefined) return pythonString(value) === wanted;
  if (!isRecord(value) || !Object.hasOwn(value, key)) return false;
  const next = value[key];
  if (Array.isArray(next)) return next.some((element) => pathMatches(element, rest, wanted));
  return pathMatches(next, rest, wanted);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
