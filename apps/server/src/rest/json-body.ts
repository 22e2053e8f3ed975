import type { IncomingMessage } from "node:http";
import getRawBody from "raw-body";
import YAML from "yaml";
import { discardBody } from "../http-body.js";
import { HttpFault } from "./faults.js";

// Request bodies as CloudKitty reads them, stricter where JSON.parse is lax: a member named twice
// (even with the same value) is malformed, decimals given as JSON numbers keep their exact text,
// lone surrogates and deep nesting are refused.

export type JsonObject = Record<string, unknown>;

/** JSON numbers under these keys are decimals: kept as their exact text, never a binary double. */
export const DECIMAL_KEYS: ReadonlySet<string> = new Set(["cost", "level", "volume"]);
/** `"\ud800"` is valid JSON but not Unicode text: the database cannot store it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * CloudKitty's bodies nest four levels at most (a quote's resource descriptions). A body nested
 * thousands deep may parse, and then overflow the stack of whatever serializes it next.
 */
const MAX_NESTING = 32;

const NOT_JSON = "Request is not in valid JSON format";
const TOO_DEEP = `Request body nests objects and arrays deeper than ${MAX_NESTING} levels`;

function mediaType(req: IncomingMessage): string | undefined {
  return req.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
}

/**
 * Reads a JSON object body. A GET's body holds arguments, not a resource, so one that is too large
 * is a bad request (400), drained first; on other methods it is a 413, as before.
 */
export async function readJsonBody(
  req: IncomingMessage,
  limit: number,
  method: string,
  /**
   * Whether the body is a rule-set document: YAML is read too (as a team keeps it in git), and
   * numbers stay numbers, so that a cost written as a number is refused with its path (it would
   * have gone through a binary float in any other reader of the file).
   */
  ruleSet = false,
): Promise<JsonObject | undefined> {
  let raw: string;
  try {
    raw = decodeUtf8Body(await getRawBody(req, { limit }));
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === "entity.too.large") {
      const message = `Request body is larger than the limit of ${limit} bytes`;
      if (method !== "GET") throw new HttpFault(413, message);
      await discardBody(req);
      throw new HttpFault(400, message);
    }
    throw new HttpFault(400, "Request body could not be read");
  }
  if (raw.trim() === "") return undefined;
  const type = mediaType(req);
  if (ruleSet && type !== undefined && YAML_TYPES.has(type)) return readYamlObject(raw);
  if (type !== "application/json") throw new HttpFault(415, `Unknown mimetype: ${type ?? "None"}`);
  return parseJsonObject(raw, !ruleSet);
}

/**
 * The body's bytes as text, as raw-body's UTF-8 decoding gave it (iconv-lite: Node's StringDecoder,
 * one leading byte order mark dropped). The bytes are kept as they arrive and decoded once when the
 * request is handled: text decoded chunk by chunk on arrival waits in V8's heap for its turn,
 * long enough under load to be promoted to the old generation, and is then joined and copied again.
 */
export function decodeUtf8Body(bytes: Buffer): string {
  const text = bytes.toString("utf8");
  return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
}
const BYTE_ORDER_MARK = 0xfeff;

/**
 * Parses a JSON body that must be an object. With `exactDecimals`, a number that is the value of a
 * member named in DECIMAL_KEYS comes out as its exact text (a string); every other number is a
 * double, as JSON.parse gives it. Throws an HttpFault (400) for what is not such a body.
 *
 * JSON.parse does the parsing: its strings are flat and quick to read, where a parser written in
 * JavaScript builds them a character at a time (a quote's thousand resources cost twice as much to
 * price after one). What it cannot do is left to one pass over the text beforehand, which counts
 * the member names, measures the nesting, notes any escaped surrogate and quotes the decimal
 * members' numbers, so that JSON.parse reads them as strings.
 */
export function parseJsonObject(raw: string, exactDecimals: boolean): JsonObject {
  const scan = scanJson(raw, exactDecimals);
  let parsed: unknown;
  try {
    parsed = JSON.parse(scan.text) as unknown;
  } catch {
    throw new HttpFault(400, NOT_JSON);
  }
  // JSON.parse keeps the last of a repeated member: then the text names more members than the
  // parsed objects hold.
  const found = inspectParsed(parsed, scan.mayHoldSurrogate);
  if (found.members !== scan.members) throw new HttpFault(400, NOT_JSON);
  if (scan.depth > MAX_NESTING) throw new HttpFault(400, TOO_DEEP);
  if (found.loneSurrogate) {
    throw new HttpFault(
      400,
      "Request body contains a lone UTF-16 surrogate escape (such as \\ud800): not valid Unicode text",
    );
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new HttpFault(400, "Request body must be a JSON object");
  }
  return parsed as JsonObject;
}

interface JsonScan {
  /** The text for JSON.parse: the input, with the decimal members' numbers in quotes. */
  text: string;
  /** Member names in the text: every `:` outside a string, once the text is known to be JSON. */
  members: number;
  /** The deepest nesting of objects and arrays. */
  depth: number;
  /** A `\uD800`-`\uDFFF` escape, or such a code unit, appears in a string. */
  mayHoldSurrogate: boolean;
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const SPACE = 0x20;
const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const LOWER_U = 0x75;
const SURROGATE_FIRST = 0xd800;
const SURROGATE_LAST = 0xdfff;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** The longest of DECIMAL_KEYS, so that longer names need no look. */
const LONGEST_DECIMAL_KEY = Math.max(...[...DECIMAL_KEYS].map((key) => key.length));

/**
 * One pass over the text, allocating nothing unless it quotes a number. What it finds is only
 * relied on once JSON.parse has accepted the text. Quoting changes nothing else: a number that is
 * a member's value (after `:`) becomes a string in the same place, where JSON takes either, so the
 * quoted text is JSON exactly when the input is; a run that is not a whole JSON number is left as
 * it is, for JSON.parse to refuse.
 */
function scanJson(raw: string, exactDecimals: boolean): JsonScan {
  let members = 0;
  let depth = 0;
  let deepest = 0;
  let mayHoldSurrogate = false;
  /** The last token was a string, ending at `stringEnd` (its closing quote). */
  let afterString = false;
  let stringStart = 0;
  let stringEnd = 0;
  let stringEscaped = false;
  /** The last token was the `:` of a member named in DECIMAL_KEYS. */
  let decimalValue = false;
  let pieces: string[] | null = null;
  let copied = 0;
  const length = raw.length;
  let at = 0;
  while (at < length) {
    const code = raw.charCodeAt(at);
    if (code === SPACE || code === LINE_FEED || code === CARRIAGE_RETURN || code === TAB) {
      at++;
      continue;
    }
    if (code === QUOTE) {
      stringStart = at;
      stringEscaped = false;
      at++;
      while (at < length) {
        const inner = raw.charCodeAt(at);
        if (inner === QUOTE) break;
        if (inner === BACKSLASH) {
          stringEscaped = true;
          if (raw.charCodeAt(at + 1) === LOWER_U && isSurrogateEscape(raw, at + 2)) {
            mayHoldSurrogate = true;
          }
          at += 2;
          continue;
        }
        if (inner >= SURROGATE_FIRST && inner <= SURROGATE_LAST) mayHoldSurrogate = true;
        at++;
      }
      stringEnd = at;
      at++;
      afterString = true;
      decimalValue = false;
      continue;
    }
    if (code === COLON) {
      members++;
      decimalValue =
        exactDecimals && afterString && namesDecimal(raw, stringStart, stringEnd, stringEscaped);
      afterString = false;
      at++;
      continue;
    }
    afterString = false;
    if (decimalValue && (code === MINUS || (code >= DIGIT_0 && code <= DIGIT_9))) {
      decimalValue = false;
      const start = at;
      while (at < length && isNumberCharacter(raw.charCodeAt(at))) at++;
      const number = raw.slice(start, at);
      if (JSON_NUMBER.test(number)) {
        pieces ??= [];
        pieces.push(raw.slice(copied, start), '"', number, '"');
        copied = at;
      }
      continue;
    }
    decimalValue = false;
    if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
    at++;
  }
  if (pieces !== null) pieces.push(raw.slice(copied));
  return {
    text: pieces === null ? raw : pieces.join(""),
    members,
    depth: deepest,
    mayHoldSurrogate,
  };
}

/** `\uD800` to `\uDFFF` (any case) starts at `at`, just after a `\u`. */
function isSurrogateEscape(raw: string, at: number): boolean {
  const first = raw.charCodeAt(at) | 0x20;
  const second = raw.charCodeAt(at + 1) | 0x20;
  return first === 0x64 && second >= 0x38 && second <= 0x66 && (second <= 0x39 || second >= 0x61);
}

function isNumberCharacter(code: number): boolean {
  // Digits, `.`, `+`, `-`, `e`, `E`: a JSON number and whatever malformed run could follow.
  return (
    (code >= DIGIT_0 && code <= DIGIT_9) ||
    code === 0x2e ||
    code === 0x2b ||
    code === MINUS ||
    code === 0x65 ||
    code === 0x45
  );
}

/** Whether the string token between these quotes names one of DECIMAL_KEYS. */
function namesDecimal(raw: string, open: number, close: number, escaped: boolean): boolean {
  if (!escaped) {
    const length = close - open - 1;
    return length <= LONGEST_DECIMAL_KEY && DECIMAL_KEYS.has(raw.slice(open + 1, close));
  }
  try {
    return DECIMAL_KEYS.has(JSON.parse(raw.slice(open, close + 1)) as string);
  } catch {
    // Not a valid string: JSON.parse refuses the whole text anyway.
    return false;
  }
}

/** Members of every object (a repeated one counts once), and whether any string is not text. */
function inspectParsed(
  root: unknown,
  mayHoldSurrogate: boolean,
): { members: number; loneSurrogate: boolean } {
  let members = 0;
  let loneSurrogate = false;
  // Values are checked as they are met; the text's nesting is already known to be finite.
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === "string") {
      if (mayHoldSurrogate && LONE_SURROGATE.test(value)) loneSurrogate = true;
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
      continue;
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      members++;
      if (mayHoldSurrogate && LONE_SURROGATE.test(key)) loneSurrogate = true;
      pending.push((value as JsonObject)[key]);
    }
  }
  return { members, loneSurrogate };
}

const YAML_TYPES = new Set(["application/yaml", "application/x-yaml", "text/yaml"]);

/**
 * A YAML body as a JSON object: YAML 1.2's core schema (`yes` stays a string), one document,
 * duplicate keys refused, as @ratecard/ruleset reads a rule-set file.
 */
function readYamlObject(raw: string): JsonObject {
  const parsed = YAML.parseDocument(raw, { uniqueKeys: true, prettyErrors: false });
  const problem = [...parsed.errors, ...parsed.warnings][0];
  if (problem) {
    throw new HttpFault(
      400,
      `Request is not in valid YAML format: ${problem.message.split("\n")[0]}`,
    );
  }
  const value: unknown = parsed.toJS({ maxAliasCount: 100 });
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new HttpFault(400, "Request body must be a YAML mapping");
  }
  if (nestingDepth(value) > MAX_NESTING) throw new HttpFault(400, TOO_DEEP);
  return value as JsonObject;
}

/** How deep objects and arrays nest, found without recursion for that reason. */
function nestingDepth(root: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[root, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (value === null || typeof value !== "object") continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_NESTING) break;
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
  }
  return deepest;
}
