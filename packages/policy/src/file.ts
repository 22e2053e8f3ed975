import { readFileSync } from "node:fs";
import { LineCounter, isMap, isScalar, parseDocument } from "yaml";
import type { Node } from "yaml";
import { CheckSyntaxError, parseCheck } from "./check.js";
import { PolicyError, createPolicy } from "./policy.js";
import type { Policy } from "./policy.js";

/** A policy file that cannot be used; the message starts `<file>:<line>:`. */
export class PolicyFileError extends Error {
  override name = "PolicyFileError";
  constructor(
    readonly file: string,
    /** 1-based; undefined when the file could not be read at all */
    readonly line: number | undefined,
    readonly reason: string,
  ) {
    super(`${file}${line === undefined ? "" : `:${line}`}: ${reason}`);
  }
}

/**
 * Reads an oslo.policy file (YAML, or JSON, which YAML reads too): a mapping of rule name to
 * check string. Its rules replace the defaults of the same name and may add new ones; an empty
 * file keeps the defaults. Anything oslo.policy would ignore or deny with a log line is a
 * `PolicyFileError` here, so a mistyped policy stops the server instead of locking users out.
 */
export function loadPolicyFile(path: string, defaults: Record<string, string>): Policy {
  let source: string;
  try {
    source = readFileSync(path, "utf8");
  } catch (error) {
    throw new PolicyFileError(path, undefined, `cannot read: ${String(error)}`);
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(source, { lineCounter, prettyErrors: false });
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line;
  const nodeLine = (node: Node | null | undefined): number | undefined =>
    node?.range ? lineOf(node.range[0]) : undefined;

  const [syntaxError] = document.errors;
  if (syntaxError !== undefined) {
    throw new PolicyFileError(
      path,
      lineOf(syntaxError.pos[0]),
      `invalid YAML: ${syntaxError.message}`,
    );
  }
  const root = document.contents;
  if (root === null || (isScalar(root) && root.value === null)) return createPolicy(defaults);
  if (!isMap(root)) {
    throw new PolicyFileError(
      path,
      nodeLine(root),
      "expected a mapping of rule names to check strings",
    );
  }

  const overrides: Record<string, string> = {};
  const lines = new Map<string, number | undefined>();
  for (const { key, value } of root.items) {
    if (!isScalar(key) || typeof key.value !== "string") {
      throw new PolicyFileError(path, nodeLine(key), "a rule name must be a string");
    }
    const name = key.value;
    const line = nodeLine(value) ?? nodeLine(key);
    if (!isScalar(value) || typeof value.value !== "string") {
      throw new PolicyFileError(
        path,
        line,
        `rule "${name}" must be a check string (write "" for a rule that always passes)`,
      );
    }
    try {
      parseCheck(value.value);
    } catch (error) {
      if (!(error instanceof CheckSyntaxError)) throw error;
      throw new PolicyFileError(path, line, `cannot parse rule "${name}": ${error.message}`);
    }
    overrides[name] = value.value;
    lines.set(name, nodeLine(key));
  }

  try {
    return createPolicy(defaults, overrides);
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    const inFile = error.rules.find((name) => lines.has(name));
    throw new PolicyFileError(
      path,
      inFile === undefined ? undefined : lines.get(inFile),
      error.message,
    );
  }
}
