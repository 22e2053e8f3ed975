/**
 * oslo.policy's check-string language: the tokenizer and the greedy shift-reduce parser of
 * oslo_policy/_parser.py, reproduced so that every check string reduces to the same tree
 * (including its precedence quirks). Where oslo logs "Failed to understand rule" and denies,
 * `parseCheck` throws instead, so a bad policy stops the server at start.
 */

/** A piece of a check's right-hand side: literal text, or `%(name)s` read from the target. */
export type TemplatePart = { text: string } | { targetKey: string };

/** What the left-hand side of a generic check `kind:match` names. */
export type GenericSubject =
  /** a Python literal (`True`, `'spam'`, `42`), compared as Python's `str()` of it */
  | { literal: string }
  /** a dotted path into the credentials (`is_admin`, `token.roles.name`) */
  | { path: readonly string[] };

export type Check =
  | { type: "true" }
  | { type: "false" }
  | { type: "role"; match: string; template: readonly TemplatePart[] }
  | { type: "rule"; name: string }
  | {
      type: "generic";
      kind: string;
      subject: GenericSubject;
      match: string;
      template: readonly TemplatePart[];
    }
  | { type: "not"; check: Check }
  | { type: "and"; checks: readonly Check[] }
  | { type: "or"; checks: readonly Check[] };

export class CheckSyntaxError extends Error {
  override name = "CheckSyntaxError";
}

/** Parses a check string; throws `CheckSyntaxError` where oslo.policy would deny for want of a parse. */
export function parseCheck(text: string): Check {
  // oslo: only the empty string means "always"; a blank one fails to reduce.
  if (text === "") return { type: "true" };
  const stack: Token[] = [];
  for (const token of tokenize(text)) {
    stack.push(token);
    reduce(stack);
  }
  const only = stack[0];
  if (stack.length !== 1 || only === undefined || !isCheckLike(only)) {
    throw new CheckSyntaxError(`cannot parse ${JSON.stringify(text)}: ${describeLeftover(stack)}`);
  }
  return only.check;
}

/** The check as oslo.policy's `str()` prints it: shows how a check string was grouped. */
export function formatCheck(check: Check): string {
  switch (check.type) {
    case "true":
      return "@";
    case "false":
      return "!";
    case "role":
      return `role:${check.match}`;
    case "rule":
      return `rule:${check.name}`;
    case "generic":
      return `${check.kind}:${check.match}`;
    case "not":
      return `not ${formatCheck(check.check)}`;
    case "and":
      return `(${check.checks.map(formatCheck).join(" and ")})`;
    case "or":
      return `(${check.checks.map(formatCheck).join(" or ")})`;
  }
}

/** Names of the rules a check refers to with `rule:NAME`. */
export function referencedRules(check: Check): string[] {
  switch (check.type) {
    case "rule":
      return [check.name];
    case "not":
      return referencedRules(check.check);
    case "and":
    case "or":
      return check.checks.flatMap(referencedRules);
    default:
      return [];
  }
}

type Token =
  | { type: "(" | ")" | "and" | "or" | "not" }
  | { type: "string"; value: string }
  | { type: "check"; check: Check }
  | { type: "and_expr"; check: Check & { type: "and" } }
  | { type: "or_expr"; check: Check & { type: "or" } };

type CheckLikeToken = Extract<Token, { check: Check }>;

function isCheckLike(token: Token): token is CheckLikeToken {
  return token.type === "check" || token.type === "and_expr" || token.type === "or_expr";
}

function* tokenize(text: string): Generator<Token> {
  for (const word of text.split(/\s+/)) {
    if (word === "") continue;
    // Parentheses are split off only at a word's ends, so `%(project_id)s` stays whole.
    const withoutOpening = word.replace(/^\(+/, "");
    for (let i = withoutOpening.length; i < word.length; i++) yield { type: "(" };
    if (withoutOpening === "") continue;
    const clean = withoutOpening.replace(/\)+$/, "");
    const lowered = clean.toLowerCase();
    if (lowered === "and" || lowered === "or" || lowered === "not") {
      yield { type: lowered };
    } else if (clean !== "") {
      // oslo tests the quotes before stripping the closing parentheses, and a bare string never
      // reduces, so `'admin'` alone is a parse failure there as well.
      const first = withoutOpening[0];
      if (
        withoutOpening.length >= 2 &&
        (first === "'" || first === '"') &&
        withoutOpening.endsWith(first)
      ) {
        yield { type: "string", value: withoutOpening.slice(1, -1) };
      } else {
        yield { type: "check", check: parseSingleCheck(clean) };
      }
    }
    for (let i = clean.length; i < withoutOpening.length; i++) yield { type: ")" };
  }
}

/** oslo's `ParseState.reduce`: apply the first matching pattern at the top of the stack, repeat. */
function reduce(stack: Token[]): void {
  for (;;) {
    const [a, b, c] = stack.slice(-3);
    if (stack.length >= 3 && a !== undefined && b !== undefined && c !== undefined) {
      const replacement = reduceThree(a, b, c);
      if (replacement !== undefined) {
        stack.splice(-3, 3, replacement);
        continue;
      }
    }
    const [notToken, operand] = stack.slice(-2);
    if (stack.length >= 2 && notToken?.type === "not" && operand?.type === "check") {
      stack.splice(-2, 2, { type: "check", check: { type: "not", check: operand.check } });
      continue;
    }
    return;
  }
}

function reduceThree(a: Token, b: Token, c: Token): Token | undefined {
  if (a.type === "(" && c.type === ")" && isCheckLike(b)) return { type: "check", check: b.check };
  if (c.type !== "check") return undefined;
  if (b.type === "and") {
    if (a.type === "check") return andExpr([a.check, c.check]);
    if (a.type === "and_expr") return andExpr([...a.check.checks, c.check]);
    if (a.type === "or_expr") {
      // `A or B and C`: the `and` takes the last operand of the `or`, so `and` binds tighter.
      const checks = a.check.checks;
      const last = checks[checks.length - 1];
      if (last === undefined) return undefined;
      const joined = last.type === "and" ? [...last.checks, c.check] : [last, c.check];
      return orExpr([...checks.slice(0, -1), { type: "and", checks: joined }]);
    }
  }
  if (b.type === "or") {
    if (a.type === "check" || a.type === "and_expr") return orExpr([a.check, c.check]);
    if (a.type === "or_expr") return orExpr([...a.check.checks, c.check]);
  }
  return undefined;
}

function andExpr(checks: Check[]): Token {
  return { type: "and_expr", check: { type: "and", checks } };
}

function orExpr(checks: Check[]): Token {
  return { type: "or_expr", check: { type: "or", checks } };
}

function describeLeftover(stack: readonly Token[]): string {
  const shown = stack.map((token) =>
    token.type === "string"
      ? `the quoted string '${token.value}', which is not a check`
      : isCheckLike(token)
        ? formatCheck(token.check)
        : `"${token.type}"`,
  );
  return stack.length === 0
    ? "no check in it"
    : `it does not reduce to one check (left with ${shown.join(", ")})`;
}

/** oslo's `_parse_check`: one word, `!`, `@` or `kind:match`. */
function parseSingleCheck(word: string): Check {
  if (word === "!") return { type: "false" };
  if (word === "@") return { type: "true" };
  const colon = word.indexOf(":");
  if (colon < 0) {
    throw new CheckSyntaxError(`"${word}" is not a check (expected kind:match, @ or !)`);
  }
  const kind = word.slice(0, colon);
  const match = word.slice(colon + 1);
  switch (kind) {
    case "rule":
      return { type: "rule", name: match };
    case "role":
      return { type: "role", match, template: parseTemplate(match, word) };
    case "http":
    case "https":
      throw new CheckSyntaxError(`"${word}": remote ${kind} checks are not supported`);
    default:
      return {
        type: "generic",
        kind,
        subject: parseSubject(kind, word),
        match,
        template: parseTemplate(match, word),
      };
  }
}

/**
 * oslo tries `ast.literal_eval(kind)` and falls back to a credentials path. The literals that
 * can fit in one word of a check string are read here; a kind that looks like a literal but is
 * not one (an unclosed quote) would raise in Python at enforcement time, so it is refused now.
 */
function parseSubject(kind: string, word: string): GenericSubject {
  if (kind === "") throw new CheckSyntaxError(`"${word}" has nothing before the colon`);
  if (kind === "True" || kind === "False" || kind === "None") return { literal: kind };
  if (/^[+-]?(0|[1-9][0-9]*)$/.test(kind)) return { literal: BigInt(kind).toString() };
  const first = kind[0];
  if (first === "'" || first === '"') {
    const body = kind.slice(1, -1);
    if (kind.length < 2 || !kind.endsWith(first) || body.includes(first) || body.includes("\\")) {
      throw new CheckSyntaxError(`"${word}": ${kind} is not a plain quoted string`);
    }
    return { literal: body };
  }
  if (/^[+-]?[0-9.]/.test(kind)) {
    throw new CheckSyntaxError(`"${word}": numeric constant ${kind} is not supported`);
  }
  return { path: kind.split(".") };
}

/** Python's `match % target` with a mapping: `%(name)s` substitutions and `%%`. */
function parseTemplate(match: string, word: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = "";
  const pattern = /%%|%\(([^)]*)\)s|%/g;
  let last = 0;
  for (const found of match.matchAll(pattern)) {
    text += match.slice(last, found.index);
    last = found.index + found[0].length;
    if (found[0] === "%%") {
      text += "%";
    } else if (found[1] !== undefined) {
      if (text !== "") parts.push({ text });
      text = "";
      parts.push({ targetKey: found[1] });
    } else {
      // Python raises on these at enforcement time; only %(name)s is meaningful in a policy.
      throw new CheckSyntaxError(`"${word}": a % must start %(name)s or be written %%`);
    }
  }
  text += match.slice(last);
  if (text !== "") parts.push({ text });
  return parts;
}
