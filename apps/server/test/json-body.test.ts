import { StringDecoder } from "node:string_decoder";
import { isLosslessNumber, parse as parseJsonLosslessly } from "lossless-json";
import { describe, expect, it } from "vitest";
import { HttpFault } from "../src/rest/faults.js";
import { DECIMAL_KEYS, decodeUtf8Body, parseJsonObject } from "../src/rest/json-body.js";
import { seededRandom, type Random } from "./support/random.js";

// parseJsonObject (JSON.parse and one scan of the text) against the reader it replaced
// (lossless-json with a reviver), on generated texts, valid and broken: the same objects, the same
// strings and numbers, the same faults. HTTP-level cases are in bad-input.test.ts.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The previous reader, as it was in rest/compat.ts. */
function previousReader(raw: string, exactDecimals: boolean): unknown {
  let parsed: unknown;
  let notText = false;
  let members = 0;
  try {
    parsed = parseJsonLosslessly(raw, function (this: unknown, key, value) {
      if (!Array.isArray(this)) members++;
      if (LONE_SURROGATE.test(key) || (typeof value === "string" && LONE_SURROGATE.test(value)))
        notText = true;
      if (!isLosslessNumber(value)) return value;
      return DECIMAL_KEYS.has(key) && exactDecimals ? value.toString() : Number(value.toString());
    });
  } catch {
    throw new HttpFault(400, "Request is not in valid JSON format");
  }
  if (members - 1 !== countColons(raw)) {
    throw new HttpFault(400, "Request is not in valid JSON format");
  }
  if (depthOf(parsed) > 32) {
    throw new HttpFault(400, "Request body nests objects and arrays deeper than 32 levels");
  }
  if (notText) {
    throw new HttpFault(
      400,
      "Request body contains a lone UTF-16 surrogate escape (such as \\ud800): not valid Unicode text",
    );
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new HttpFault(400, "Request body must be a JSON object");
  }
  return parsed;
}

function countColons(json: string): number {
  let names = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const character = json[i];
    if (inString) {
      if (character === "\\") i++;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === ":") names++;
  }
  return names;
}

function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

type Outcome = { value: unknown } | { status: number; message: string };

function outcomeOf(read: () => unknown): Outcome {
  try {
    return { value: read() };
  } catch (error) {
    if (!(error instanceof HttpFault)) throw error;
    return { status: error.status, message: error.message };
  }
}

const KEYS = [
  '"cost"',
  '"level"',
  '"volume"',
  '"vol\\u0075me"',
  '"c\\u006Fst"',
  '"costs"',
  '"Volume"',
  '"name"',
  '"desc"',
  '"a:b"',
  '"x\\"y"',
  '"\\\\"',
  '""',
  '"__proto__"',
  '"\\ud800"',
  '"\\uD83D\\uDE00"',
  '"0"',
];
const NUMBERS = [
  "0",
  "-0",
  "1",
  "-1",
  "0.5",
  "1.50",
  "10.000",
  "1e5",
  "1E-7",
  "-2.5e+3",
  "123456789012345678901234567890.123456789",
  "0.1000000000000000000000000000000001",
  "9007199254740993",
  "1e400",
  "-1e-400",
];
const STRINGS = [
  '"1"',
  '"0.5"',
  '""',
  '"m1.small"',
  '"a:\\":b"',
  '"\\ud800"',
  '"x\\udfffy"',
  '"\\uD83D\\uDE00"',
  '"\\u00e9"',
  '"tab\\tnew\\nline"',
  '"é中😀"',
];
const SPACES = ["", "", "", " ", "\n", "\t", "\r\n  "];

function value(random: Random, depth: number): string {
  const kind = depth > 5 ? random.int(4) : random.int(7);
  switch (kind) {
    case 0:
      return random.pick(NUMBERS);
    case 1:
      return random.pick(STRINGS);
    case 2:
      return random.pick(["true", "false", "null"]);
    case 3:
      return random.pick(NUMBERS);
    case 4:
    case 5:
      return object(random, depth + 1);
    default: {
      const items = Array.from({ length: random.int(4) }, () => value(random, depth + 1));
      return `[${items.map((item) => space(random) + item + space(random)).join(",")}]`;
    }
  }
}

function space(random: Random): string {
  return random.pick(SPACES);
}

function object(random: Random, depth: number): string {
  const members = Array.from({ length: random.int(5) }, () => {
    const key = random.pick(KEYS);
    return `${space(random)}${key}${space(random)}:${space(random)}${value(random, depth)}${space(random)}`;
  });
  // A member given twice, sometimes with the same value.
  if (members.length > 0 && random.chance(0.1)) members.push(random.pick(members));
  return `{${members.join(",")}}`;
}

const BREAKERS = ["", ",", ":", '"', "\\", "{", "}", "[", "]", "-", ".", "e", "0", "+", " ", "x"];

/** A valid text, or one with a character dropped, added or replaced. */
function text(random: Random): string {
  let json = object(random, 0);
  if (random.chance(0.1)) json = `${"[".repeat(30)}${json}${"]".repeat(30)}`;
  if (random.chance(0.35)) {
    const at = random.int(json.length + 1);
    const drop = random.int(2);
    json = json.slice(0, at) + random.pick(BREAKERS) + json.slice(at + drop);
  }
  return space(random) + json + space(random);
}

describe("parseJsonObject reads what the lossless-json reader read", () => {
  it.each([true, false])("on generated texts (exact decimals: %s)", (exactDecimals) => {
    const random = seededRandom(exactDecimals ? 20261126 : 8);
    const seen = { value: 0, fault: 0 };
    for (let run = 0; run < 20_000; run++) {
      const raw = text(random);
      const expected = outcomeOf(() => previousReader(raw, exactDecimals));
      const actual = outcomeOf(() => parseJsonObject(raw, exactDecimals));
      if ("value" in expected) seen.value++;
      else seen.fault++;
      try {
        expect(actual).toStrictEqual(expected);
      } catch (error) {
        throw new Error(`for the text ${JSON.stringify(raw)}: ${String(error)}`, { cause: error });
      }
    }
    // Both kinds of outcome were tried in earnest.
    expect(seen.value).toBeGreaterThan(2_000);
    expect(seen.fault).toBeGreaterThan(2_000);
  });

  it.each([
    ['{"volume": 1.50}', { volume: "1.50" }],
    ['{"cost":-0, "n": -0}', { cost: "-0", n: -0 }],
    ['{"vol\\u0075me" : 1e-7}', { volume: "1e-7" }],
    [
      '{"level": [1.5], "desc": {"volume": 2, "x": 0.1}}',
      { level: [1.5], desc: { volume: "2", x: 0.1 } },
    ],
    ['{"cost": "0.5"}', { cost: "0.5" }],
    ['{"__proto__": {"cost": 1}}', JSON.parse('{"__proto__": {"cost": "1"}}') as unknown],
  ])("reads %s exactly", (raw, expected) => {
    expect(parseJsonObject(raw, true)).toStrictEqual(expected);
  });

  it("keeps numbers as numbers in a rule-set document", () => {
    expect(parseJsonObject('{"cost": 1.50, "level": 2}', false)).toStrictEqual({
      cost: 1.5,
      level: 2,
    });
  });

  it.each([
    ['{"cost": 01}', "Request is not in valid JSON format"],
    ['{"cost": 1.}', "Request is not in valid JSON format"],
    ['{"cost": -}', "Request is not in valid JSON format"],
    ['{"cost": 1.5.3}', "Request is not in valid JSON format"],
    ['{"cost": 1 2}', "Request is not in valid JSON format"],
    ['{"cost": +1}', "Request is not in valid JSON format"],
    ['{"cost": 1, "cost": 1}', "Request is not in valid JSON format"],
    ['{"cost": 1, "c\\u006fst": 2}', "Request is not in valid JSON format"],
    [
      '{"a": "\\udc00"}',
      "Request body contains a lone UTF-16 surrogate escape (such as \\ud800): not valid Unicode text",
    ],
  ])("refuses %s", (raw, message) => {
    expect(outcomeOf(() => parseJsonObject(raw, true))).toStrictEqual({ status: 400, message });
  });

  it("refuses nesting past 32 levels, however deep (the old reader ran out of stack first)", () => {
    for (const depth of [33, 5_000, 100_000]) {
      const raw = `{"a":${"[".repeat(depth)}${"]".repeat(depth)}}`;
      expect(outcomeOf(() => parseJsonObject(raw, true))).toStrictEqual({
        status: 400,
        message: "Request body nests objects and arrays deeper than 32 levels",
      });
    }
  });
});

describe("decodeUtf8Body decodes as raw-body's UTF-8 decoder did", () => {
  /** iconv-lite's "utf8": a StringDecoder per chunk, a leading byte order mark dropped once. */
  function decodeInChunks(chunks: Buffer[]): string {
    const decoder = new StringDecoder("utf8");
    let text = "";
    let started = false;
    for (const chunk of chunks) {
      let part = decoder.write(chunk);
      if (!started && part !== "") {
        if (part.charCodeAt(0) === 0xfeff) part = part.slice(1);
        started = true;
      }
      text += part;
    }
    return text + decoder.end();
  }

  it("on generated bytes, valid and broken UTF-8, however they are split into chunks", () => {
    const random = seededRandom(42);
    const pieces = [
      [0xef, 0xbb, 0xbf],
      [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d],
      [0xc3, 0xa9],
      [0xe4, 0xb8, 0xad],
      [0xf0, 0x9f, 0x98, 0x80],
      [0xed, 0xa0, 0x80],
      [0xff],
      [0xfe],
      [0xc3],
      [0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
      [0x20],
    ];
    for (let run = 0; run < 20_000; run++) {
      const bytes = Buffer.from(
        Array.from({ length: random.int(8) }, () => random.pick(pieces)).flat(),
      );
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length;) {
        const size = 1 + random.int(4);
        chunks.push(bytes.subarray(at, at + size));
        at += size;
      }
      expect(decodeUtf8Body(bytes), `bytes ${bytes.toString("hex")}`).toBe(decodeInChunks(chunks));
    }
  });
});
