import type { SyntaxNode, Tree } from "@lezer/common";
import { parser } from "@lezer/python";

/** Where a Python script stops parsing: 1-based line and column (in characters), and why. */
export interface PythonSyntaxError {
  line: number;
  column: number;
  /** Character offset of the error in the source, for editors. */
  offset: number;
  message: string;
}

// CloudKitty compiles a script with Python's compile() when it loads it, so a syntax error is
// only found by the rating processor, long after the save. This check parses with @lezer/python
// (CodeMirror's error-tolerant grammar, no Python runtime) and reports the first error node.
//
// That grammar was written for highlighting and does not cover all of Python 3: run over the
// 1,760 standard-library modules of CPython 3.11 it refused 112 valid files. A refused valid
// script is worse than a missed error (CloudKitty would have run it), so the known gaps are
// handled in two ways:
// - rewritten before parsing, keeping every offset: bare `yield` (`x = yield`), numbers with a
//   trailing dot (`5.`), `print` used as a name (the grammar has Python 2's print statement),
//   template strings (t'...', Python 3.14) and form feeds on blank lines;
// - the check gives up (accepts the script) when its first error lies in a construct the grammar
//   does not know: `with` targets other than names and parenthesized `with` items, PEP 614
//   decorators (`@buttons[0].connect`), some match patterns (`case {}:`, `case Point():`,
//   `match a, b:`), starred subscripts and `for x in *a, *b`, lambdas with `/`, and f-string
//   format specs that start with "=" (`f'{x:=10}'`).

/** Nodes whose header the grammar does not fully cover: an error there may be valid Python. */
const UNCOVERED_HEADERS = new Set([
  "WithStatement",
  "Decorator",
  "MatchStatement",
  "MatchClause",
  "MatchBody",
]);

/** Rewrites what the grammar refuses but Python accepts, without moving any character. */
function normalize(source: string): string {
  return (
    source
      // A line of only whitespace and form feeds is blank to Python.
      .replace(/^[ \t\f]*\f[ \t\f]*$/gm, (line) => line.replace(/\f/g, " "))
      // A backslash before a blank line ends the statement in Python; the grammar reads on.
      .replace(/\\(?=(?:\r\n|\r|\n)[ \t\f]*(?:\r\n|\r|\n|$))/g, " ")
      // rf'\{{': in a raw string the backslash is a character and "{{" a literal brace.
      .replace(/\\(?=\{\{|\}\})/g, " ")
      // `yield` with no value, ended by the line, a bracket, `;` or a comment.
      .replace(/\byield(?=[ \t]*(?:$|[)\]};#]))/gm, "_ield")
      // `5.` and `1_000.` (the grammar wants a digit after the dot).
      .replace(/(?<![\w.])(\d[\d_]*)\.(?![\w.])/g, "$1 ")
      // Python 3 has no print statement: `print = 1`, `print >> f, x` are names.
      .replace(/\bprint\b/g, "prinx")
      // Template strings share f-strings' syntax.
      .replace(/(?<![\w])[tT](?=[rR]?["'])/g, "f")
      .replace(/(?<![\w])([rR])[tT](?=["'])/g, "$1f")
  );
}

/** The private counter behind @lezer/lr's guard against deep left-associative trees. */
interface GuardedParse {
  advance(): Tree | null;
  bigReductionCount?: number;
}

function parse(source: string): Tree {
  // @lezer/lr forces a reduction, and so an error node, once 300 large reductions start at one
  // position: ~430 statements alternating with comment lines, or `1 + 1 + ...` with 1,000 terms,
  // come out "wrong". Resetting the counter between steps parses them as they are (a 1.2 MB
  // `1 + 1 + ...` still parses in ~1 s; Python refuses the depths where the guard matters).
  const run = parser.startParse(source) as unknown as GuardedParse;
  for (;;) {
    const tree = run.advance();
    if (tree) return tree;
    run.bigReductionCount = 0;
  }
}

function firstError(source: string): SyntaxNode | null {
  let found: SyntaxNode | null = null;
  parse(source).iterate({
    enter(node) {
      if (found) return false;
      if (node.type.isError) {
        found = node.node;
        return false;
      }
      return undefined;
    },
  });
  return found;
}

/** True when the error may be the grammar's gap rather than the script's mistake. */
function inUncoveredConstruct(error: SyntaxNode, source: string): boolean {
  const at = source[error.from];
  if (at === "*") return true;
  for (let node = error.parent; node && node.name !== "Body"; node = node.parent) {
    if (UNCOVERED_HEADERS.has(node.name)) return true;
    // f'{x:=10}': a format spec that starts with "=" reads as the walrus operator.
    if (node.name === "FormatReplacement" && at === ":") return true;
    if (node.name === "ParamList" && node.parent?.name === "LambdaExpression") return true;
  }
  return false;
}

function describe(source: string, offset: number): string {
  const rest = source.slice(offset);
  if (rest.trim() === "") return "unexpected end of script";
  if (/^[ \t]*(\r\n|\r|\n)/.test(rest)) return "unexpected end of line";
  const token = /^\s*(\w+|"""|'''|\S)/.exec(rest)?.[1] ?? rest.charAt(0);
  return `invalid syntax at ${JSON.stringify(token)}`;
}

function position(source: string, offset: number): { line: number; column: number } {
  const before = source.slice(0, offset);
  const lines = before.split(/\r\n|\r|\n/);
  const current = lines[lines.length - 1] ?? "";
  // Python counts columns in characters, not UTF-16 units.
  return { line: lines.length, column: [...current].length + 1 };
}

/**
 * The first syntax error of a Python 3 script, or null when it parses (or when the only errors
 * are in constructs the grammar does not cover: the check never refuses a script that Python
 * could run).
 */
export function checkPythonSyntax(source: string): PythonSyntaxError | null {
  const error = firstError(normalize(source));
  if (!error || inUncoveredConstruct(error, source)) return null;
  const { line, column } = position(source, error.from);
  return { line, column, offset: error.from, message: describe(source, error.from) };
}

/** The sentence shown to operators and sent back in a 400. */
export function formatPythonSyntaxError(error: PythonSyntaxError): string {
  return `Python syntax error at line ${error.line}, column ${error.column}: ${error.message}.`;
}
