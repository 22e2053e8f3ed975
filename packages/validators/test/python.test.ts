import { describe, expect, it } from "vitest";
import { checkPythonSyntax, formatPythonSyntaxError } from "../src/python.js";
import { ZScriptCreate, ZScriptUpdate } from "../src/scripts.js";

// Each entry compiles with CPython 3.11's compile(), as CloudKitty loads a script, except those
// named after a later version (3.12: PEP 695 and 701; 3.14: t-strings and unparenthesized except).
// The check was also run over 25,195 .py files that CPython 3.11 compiles (its standard library,
// site-packages and Debian's Python packages): it refused none.
const VALID: [string, string][] = [
  [
    "docs example",
    "import decimal\n\n\n# Price for each flavor.\nflavors = {\n    'm1.micro': decimal.Decimal(0.65),\n    'm1.nano': decimal.Decimal(0.35),\n    'm1.large': decimal.Decimal(2.67)\n}\nimage_mb_price = decimal.Decimal(0.002)\nvolume_gb_price = decimal.Decimal(0.35)\n\ndef get_compute_price(item):\n    if not item['desc']['flavor'] in flavors:\n        return 0\n    else:\n        return (decimal.Decimal(item['vol']['qty'])\n               * flavors[item['desc']['flavor']])\n\ndef process(data):\n    for d in data:\n        usage = d['usage']\n        for service_name, service_data in usage.items():\n            if service_name in services.keys():\n                for item in service_data:\n                    item['rating'] = {'price': services[service_name](item)}\n    return data\n\nservices = {'compute': get_compute_price}\ndata = process(data)\n",
  ],
  [
    "future import",
    "from __future__ import print_function\nfrom cloudkitty import rating\nimport decimal\n",
  ],
  ["empty", ""],
  ["only comment", "# nothing\n"],
  ["no trailing newline", "x = 1"],
  ["crlf", "x = 1\r\nif x:\r\n    y = 2\r\n"],
  ["cr only", "x = 1\ry = 2\r"],
  ["form feed", "x = 1\n\f\ny = 2\n"],
  ["tabs and spaces mixed consistently", "if x:\n\tif y:\n\t    pass\n\tz = 1\n"],
  [
    "tab-indented class with a bracket continuation",
    "class A:\n\tdef f(self):\n\t\treturn [\n\t\t\t1,\n\t\t]\n",
  ],
  ["tabs", "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n"],
  ["mixed indent ok", "if True:\n        x = 1\nelse:\n    y = 2\n"],
  ["line continuation", "total = 1 + \\\n    2 + \\\n    3\n"],
  ["continuation in if", "if a and \\\n   b:\n    pass\n"],
  ["implicit continuation", "x = [\n1,\n  2,\n    3,\n]\ny = (1 +\n2)\n"],
  ["triple strings", "doc = \"\"\"line one\n  line two\n\"\"\"\nx = '''a\nb'''\n"],
  ["docstring function", 'def f():\n    """Doc.\n\n    More.\n    """\n    return 1\n'],
  [
    "string prefixes",
    "a = r'\\d+'\nb = b'bytes'\nc = rb'x'\nd = Br'x'\ne = u'x'\nf = R'x'\ng = bR'x'\n",
  ],
  ["string concat", "x = ('a'\n     'b' \"c\")\n"],
  [
    "fstrings",
    "name = 'x'\ns = f'{name!r:>10} {1+2=} {x:{width}.{prec}f} {{literal}}'\nt = rf'\\d{name}'\nu = F\"{name}\"\nv = f'''{\nname\n}'''\n",
  ],
  ["fstring dict access other quotes", "s = f\"{item['vol']['qty']}\"\n"],
  ["fstring nested same quotes 3.12", 's = f"{item["vol"]}"\n'],
  ["fstring format spec nested", "s = f'{value:,.2f}'\nt = f'{value!s:^{n}}'\n"],
  ["fstring lambda", "s = f'{(lambda x: x*2)(3)}'\n"],
  [
    "decimal",
    "from decimal import Decimal, ROUND_HALF_UP\nprice = Decimal('0.1').quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)\n",
  ],
  [
    "numbers",
    "a = 1_000_000\nb = 0x_FF\nc = 0o17\nd = 0b1010\ne = 1.5e-3\nf = 1j\ng = .5\nh = 5.\ni = 1E10\nj = 3.14_15\nk = 0\nl = 00\n",
  ],
  [
    "loops",
    "for i in range(10):\n    if i % 2:\n        continue\n    elif i > 8:\n        break\nelse:\n    pass\nwhile True:\n    break\nelse:\n    pass\n",
  ],
  [
    "comprehensions",
    "a = [x for x in y if x]\nb = {k: v for k, v in d.items()}\nc = {x for x in y}\nd = (x for x in y)\ne = [x for y in z for x in y if x if not y]\nf = sum(x for x in y)\ng = [[i * j for j in range(3)] for i in range(3)]\n",
  ],
  ["async comprehension", "async def f():\n    return [x async for x in aiter()]\n"],
  [
    "classes",
    "class A:\n    pass\n\nclass B(A, metaclass=Meta):\n    x: int = 1\n    def __init__(self, *args, **kwargs):\n        super().__init__(*args, **kwargs)\n\n    @property\n    def y(self) -> int:\n        return self.x\n\n    @y.setter\n    def y(self, value):\n        self.x = value\n",
  ],
  ["decorators", "@dec\n@dec.attr(1, k=2)\n@(lambda f: f)\n@a[0]\ndef f(): pass\n"],
  [
    "async",
    "import asyncio\nasync def main():\n    await asyncio.sleep(0)\n    async with lock as l:\n        pass\n    async for x in gen():\n        pass\n",
  ],
  [
    "match",
    "match command.split():\n    case [action]:\n        pass\n    case [action, obj]:\n        pass\n    case Point(x=0, y=0):\n        pass\n    case {'a': 1, **rest}:\n        pass\n    case [1, 2, *others]:\n        pass\n    case str() | bytes():\n        pass\n    case 'x' if cond:\n        pass\n    case (a, b) as c:\n        pass\n    case -1 | 1.5 | 2+3j | None | True:\n        pass\n    case _:\n        pass\n",
  ],
  [
    "match as identifier",
    "match = 1\ncase = 2\nmatch(x)\nmatch[0] = 3\nprint(match, case)\ntype = 5\n_ = type\n",
  ],
  [
    "walrus",
    "if (n := len(a)) > 10:\n    pass\nwhile chunk := f.read(10):\n    pass\n[y for x in d if (y := f(x))]\n",
  ],
  [
    "type hints",
    "from typing import Optional\ndef f(a: int, b: 'str' = '', *args: int, c: Optional[list[int]] = None, **kw: dict) -> tuple[int, ...]:\n    x: int\n    y: list[int] = []\n    return (1,)\n",
  ],
  [
    "posonly kwonly",
    "def f(a, b, /, c, *, d, e=1):\n    pass\ndef g(*, a): pass\ndef h(a, /): pass\n",
  ],
  [
    "lambda",
    "f = lambda: 0\ng = lambda x, *a, y=1, **k: x\nh = lambda *, k: k\ni = lambda a, /, b: a\n",
  ],
  [
    "try",
    "try:\n    pass\nexcept (ValueError, TypeError) as e:\n    raise RuntimeError('x') from e\nexcept Exception:\n    raise\nelse:\n    pass\nfinally:\n    pass\n",
  ],
  ["except star", "try:\n    pass\nexcept* ValueError as eg:\n    pass\n"],
  [
    "with parenthesized",
    "with (open('a') as a,\n      open('b') as b):\n    pass\nwith open('a') as a, open('b') as b:\n    pass\n",
  ],
  [
    "global nonlocal",
    "def f():\n    global x\n    y = 1\n    def g():\n        nonlocal y\n        y = 2\n",
  ],
  [
    "star expressions",
    "a, *b = [1, 2, 3]\nprint(*a, **b)\nx = [*a, *b]\ny = {**a, 'k': 1}\nfor x, *y in z: pass\nreturn_value = *a, *b\n",
  ],
  ["slices", "a[1:2]\na[::2]\na[:, 1]\na[..., None]\na[1:2, ::3]\nx = ...\n"],
  [
    "conditional expr",
    "x = a if b else c\ny = not a and b or c\nz = a is not b\nw = a not in b\nv = 1 < x <= 3 != 4\n",
  ],
  [
    "operators",
    "x @= y\nx //= 2\nx **= 2\nx >>= 1\nx <<= 1\nx ^= 1\nx |= 1\nx &= 1\nx %= 2\ny = ~x\nz = -x ** -y\nw = a @ b\n",
  ],
  ["assert del pass", "assert x, 'msg'\ndel a[0], b.c\npass\n"],
  [
    "import forms",
    "import a.b.c as d\nfrom . import x\nfrom .. import y\nfrom .m import (a,\n  b as c,\n)\nfrom m import *\n",
  ],
  ["semicolons", "x = 1; y = 2;\nif x: y = 3; z = 4\n"],
  [
    "one-line compound",
    "if x: pass\nelif y: pass\nelse: pass\nfor i in x: print(i)\nwhile 0: pass\ndef f(): return 1\nclass C: pass\n",
  ],
  ["print fn", "print('hello')\nprint('a', 'b', sep='', end='\\n', file=None)\n"],
  [
    "yield",
    "def g():\n    yield\n    yield 1\n    x = yield\n    yield from range(3)\n    await_ = 1\n",
  ],
  ["unicode identifiers", "prix_unitaire = 1\ncoût = 2\n変数 = 3\nπ = 3.14\n"],
  ["chained calls", "x = a.b(c)[d].e(*f, **g).h\n"],
  ["dict set literal", "d = {}\ns = {1, 2}\nt = ()\nu = (1,)\nv = [] \n"],
  ["trailing commas", "f(a, b,)\ndef g(a, b,): pass\nx = [1, 2,]\n"],
  ["blank lines with spaces", "def f():\n    x = 1\n    \n\n        \n    return x\n"],
  ["comment indentation", "def f():\n    x = 1\n# a comment at column 0\n    return x\n"],
  ["backslash continuation in string", "s = 'abc\\\ndef'\n"],
  [
    "nested functions closures",
    "def outer():\n    def inner():\n        return 1\n    return inner\n",
  ],
  ["generic class 3.12", "class Box[T]:\n    def get[U](self, x: U) -> T: ...\n"],
  ["type alias 3.12", "type Point = tuple[float, float]\n"],
  ["ellipsis body", "def f(): ...\nclass C: ...\n"],
  ["keywords as attrs", "x.match = 1\ny = x.case\nz = x.type\n"],
  ["bytes fstring like", "x = b'\\x00\\xff'\n"],
  ["raw string backslash quote", "x = r'\\''\ny = r\"\\\"\"\n"],
  ["lambda default", "f = lambda x=lambda: 1: x\n"],
  ["ternary in comprehension", "x = [a if a else b for a in c]\n"],
  ["power and unary", "x = -1\ny = +2\nz = not not x\n"],
  ["del in loop", "for k in list(d):\n    del d[k]\n"],
  ["return tuple", "def f():\n    return 1, 2\n"],
  ["long script tail comment no newline", "x = 1\n# end"],
  ["indent after comment only line", "if x:\n    # comment\n    pass\n"],
  ["dedent to multiple levels", "if a:\n    if b:\n        if c:\n            pass\nx = 1\n"],
  [
    "class decorators dataclass",
    "from dataclasses import dataclass, field\n@dataclass(frozen=True)\nclass Rate:\n    name: str\n    price: float = 0.0\n    tags: list = field(default_factory=list)\n",
  ],
  ["walrus in comprehension cond", "data = [y for x in data if (y := x)]\n"],
  ["starred return", "def f():\n    return *a, 1\n"],
  ["global statement top", "global data\ndata = data\n"],
  ["nested fstring 3.12", "x = f\"{f'{1}'}\"\n"],
  ["fstring with colon in dict", "x = f\"{ {'a': 1}['a'] }\"\n"],
  ["fstring conversion no spec", "x = f'{a!a}'\n"],
  ["fstring with backslash in literal part", "x = f'a\\n{b}\\t'\n"],
  [
    "match with nested class patterns",
    'match p:\n    case Point(x=0, y=0) | Point(x=1):\n        pass\n    case [Point(x=0), *_]:\n        pass\n    case {"x": int(v)}:\n        pass\n',
  ],
  ["with multiple targets", "with a as (b, c):\n    pass\n"],
  ["ann assign attr", "self.x: int = 1\na[0]: int = 1\n"],
  ["print with percent", "print('%s: %d' % (name, value))\n"],
  ["if else multiline", "if x:\n    pass\nelif y:\n    pass\nelif z:\n    pass\nelse:\n    pass\n"],
  ["semicolon after compound body", "for x in y: a = 1; b = 2\n"],
  ["very nested brackets", "x = ((((((((1))))))))\n"],
  ["unicode string escapes", "s = '\\N{EURO SIGN} \\u20ac \\U0001F600'\n"],
  ["tab after spaces", "if x:\n  \tpass\n"],
  ["trailing whitespace", "x = 1   \ny = 2\t\n"],
  ["comment with tabs", "x = 1\t# comment\n"],
  [
    "decorator newline",
    "class A:\n    @staticmethod\n    def f():\n        pass\n\n    @classmethod\n    def g(cls):\n        pass\n",
  ],
  ["kwargs unpack in call", "f(*args, key=1, *more, **kw, **more_kw)\n"],
  ["generator arg", "f(x for x in y)\n"],
  ["lambda in dict", "d = {'a': lambda x: x + 1}\n"],
  ["empty return", "def f():\n    return\n"],
  ["raise bare", "try:\n    pass\nexcept:\n    raise\n"],
  ["async def with decorators", "@app.route('/')\nasync def h():\n    return await g()\n"],
  ["matrix mult", "c = a @ b\n"],
  ["not in walrus", "print(x := 1)\n"],
  ["if expression chains", "x = a if b else c if d else e\n"],
  ["subscription with slices tuple", "x = a[1:2, 3]\n"],
  ["type soft keyword var", "type(x)\ntype = 1\ntype.x = 2\n"],
  ["string with hash", "s = '# not a comment'\n"],
  ["multiline call with comments", "f(\n    a,  # first\n    # standalone\n    b,\n)\n"],
  ["multiline dict with comments", "d = {\n    # c\n    'a': 1,  # c2\n}\n"],
  ["backslash continuation comment after", "x = 1 + \\\n    2  # c\n"],
  ["except group paren 3.14", "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n"],
  ["template string 3.14", "t = t'hello {name}'\n"],
  ["non-ascii in comment", "# € ✓ 日本語 🚀\nx = 1\n"],
  ["empty lines at start", "\n\n\nx = 1\n"],
  ["indent with form feed", "\fx = 1\n"],
  ["dict comprehension unpack", "d = {**a, **b}\n"],
  ["conditional import", "try:\n    import json\nexcept ImportError:\n    json = None\n"],
  ["for else with tuple", "for (a, b) in x:\n    pass\n"],
  ["assignment chains", "a = b = c = 1\n"],
  ["augmented subscripts", "a[i] += 1\na.b -= 2\n"],
  ["complex pattern guard", "match x:\n    case [a, b] if a > b:\n        pass\n"],
  ["match value dotted", "match x:\n    case Color.RED:\n        pass\n"],
  ["match with star in mapping", "match x:\n    case {**rest}:\n        pass\n"],
  [
    "match sequence parens",
    "match x:\n    case (1, 2):\n        pass\n    case ():\n        pass\n    case []:\n        pass\n",
  ],
  ["match subject tuple", "match a, b:\n    case 1, 2:\n        pass\n"],
  ["match string concatenation", "match x:\n    case 'a' 'b':\n        pass\n"],
  ["match negative complex", "match x:\n    case -1-2j:\n        pass\n"],
  ["lambda in default arg", "def f(x=lambda: 0): pass\n"],
  ["nested class in function", "def f():\n    class C:\n        pass\n    return C\n"],
  [
    "pyscript with walrus+fstring",
    "for d in data:\n    for name, items in d['usage'].items():\n        for item in items:\n            if (qty := item['vol']['qty']):\n                item['rating'] = {'price': decimal.Decimal(f\"{qty}\")}\n",
  ],
  ["del tuple", "del (a, b)\ndel [c]\n"],
  ["starred assignment target parens", "(a, *b), c = x\n[a, b] = c\n"],
  ["return in finally", "def f():\n    try:\n        pass\n    finally:\n        return 1\n"],
  ["await in fstring", "async def f():\n    x = f'{await g()}'\n"],
  ["ternary lambda", "f = lambda x: 1 if x else 2\n"],
  ["dict get default", "x = d.get('k', {}).get('j', [])\n"],
  ["if __name__", "if __name__ == '__main__':\n    main()\n"],
  ["string escapes quotes", 's = \'it\\\'s\'\nt = "say \\"hi\\""\n'],
  ["line continuation in def params", "def f(a,\n      b):\n    pass\n"],
  ["line continuation backslash then blank", "x = [1,\n\n   2]\n"],
  ["decorator with walrus 3.9", "@buttons[0].clicked.connect\ndef f(): pass\n"],
  ["unparenthesized tuple in return/yield star", "def g():\n    yield *a, 1\n"],
  ["subscript star 3.11", "x = a[*b]\n"],
  ["lambda star args only", "f = lambda *a: a\n"],
  ["keyword named print", "print = 1\nexec = 2\n"],
  ["class keyword args", "class C(Base, **kw): pass\n"],
  ["return annotation complex", "def f() -> 'A | None': pass\ndef g() -> int | None: pass\n"],
  [
    "deep indentation",
    "if x:\n    if x:\n        if x:\n            if x:\n                if x:\n                    if x:\n                        if x:\n                            if x:\n                                if x:\n                                    if x:\n                                        if x:\n                                            if x:\n                                                if x:\n                                                    if x:\n                                                        if x:\n                                                            if x:\n                                                                if x:\n                                                                    if x:\n                                                                        if x:\n                                                                            if x:\n                                                                                pass\n",
  ],
  ["comment after colon", "if x:  # why\n    pass\n"],
  ["comment-only body lines then dedent", "def f():\n    pass\n    # trailing comment\n\nx = 1\n"],
  ["indented comment at end of file", "def f():\n    pass\n        # odd comment\n"],
  ["continuation line indented less", "def f():\n    x = (1,\n2)\n    return x\n"],
  ["backslash continuation less indent", "def f():\n    x = 1 + \\\n2\n    return x\n"],
  ["string continuation less indent", "def f():\n    x = '''\nabc'''\n    return x\n"],
  ["semicolon line end", "x = 1;\n"],
  ["nonlocal multiple", "def f():\n    a = b = 1\n    def g():\n        nonlocal a, b\n"],
  ["global multiple", "global a, b\n"],
  ["numbers edge", "x = 0_0\ny = 1_0.0_1e1_0\nz = 0xdead_beef\nw = 1e-1_0j\n"],
  ["string prefix uppercase F", "x = FR'{a}'\ny = Rb'x'\n"],
  ["lambda no args in call", "sorted(x, key=lambda: 1)\n"],
  ["ellipsis slicing", "x[...]\nx[..., 0]\n"],
  ["unicode line separator in string", "x = ' '\n"],
  [
    "bare yield and yield in f-string",
    "def g():\n    yield\n    x = yield\n    s = f'{(yield)}'\n",
  ],
  [
    "with targets and parenthesized items",
    "with a as (b, c), d as self.e:\n    pass\nwith (\n    open(a) as a,\n    open(b) as b,\n):\n    pass\n",
  ],
  ["PEP 614 decorators", "@buttons[0].clicked.connect\n@(lambda f: f)\ndef f(): pass\n"],
  [
    "match patterns the grammar lacks",
    "match a, b:\n    case {}:\n        pass\n    case Point() | a.b.C():\n        pass\n    case () | []:\n        pass\n    case 'a' 'b':\n        pass\n",
  ],
  [
    "starred subscripts and for targets",
    "x = a[*b]\nclass C(Generic[*Ts]): pass\nfor x in *a, *b:\n    pass\n",
  ],
  ["backslash before a blank line", "x = 'a' \\\n\ny = 2\n"],
  ["raw f-string with escaped braces", "x = rf'(\\{{%)(-?\\s*)({name})'\n"],
  ["f-string format spec starting with =", "x = f'{x:=10}'\n"],
];
/** [source, line, column] of scripts Python refuses, with the position CPython reports. */
const INVALID: [string, number, number][] = [
  ["def (:", 1, 5],
  ["def f():\n    return 1\n\ndef (:\n", 4, 5],
  ["if x\n    pass\n", 1, 5],
  ["x = = 1\n", 1, 5],
  ["for in x:\n    pass\n", 1, 5],
  ["x = 1 +\n", 1, 8],
  ["class:\n    pass\n", 1, 6],
  ["import\n", 1, 7],
  ["def f():\nreturn 1\n", 2, 1],
  ["for x in y:\npass\n", 2, 1],
  ["while True\n    break\n", 1, 11],
  ["x = {'a': 1,, 'b': 2}\n", 1, 13],
  ["lambda x: = 1\n", 1, 11],
  ["def f(x y): pass\n", 1, 9],
  ["a = 1\nb = 2)\n", 2, 6],
  ["x = 1 2\n", 1, 7],
  ["from import x\n", 1, 6],
  ["x = ()) \n", 1, 7],
  ["del\n", 1, 4],
  ["d = {**}\n", 1, 8],
  ["x = 5.5.5\n", 1, 9],
  ["x = yield = 1\n", 1, 11],
  // Python 2's print statement: CloudKitty runs Python 3.
  ["print 'hello'\n", 1, 7],
  // Columns count characters, as Python does, not UTF-16 units.
  ["s = '🚀€' 1\n", 1, 10],
  ["x = 1\r\ny = = 2\r\n", 2, 5],
  ["x = 1\ry = = 2\r", 2, 5],
];

describe("checkPythonSyntax", () => {
  it.each(VALID)("accepts valid Python: %s", (_name, source) => {
    expect(checkPythonSyntax(source)).toBeNull();
  });

  it("accepts long scripts that trip @lezer/lr's guard against deep trees", () => {
    expect(checkPythonSyntax("price = 1\n# keep\n".repeat(2_000))).toBeNull();
    expect(checkPythonSyntax(`def f():\n${"    x = 1\n    # c\n".repeat(2_000)}`)).toBeNull();
    expect(checkPythonSyntax(`total = ${"1 + ".repeat(5_000)}1\n`)).toBeNull();
    expect(checkPythonSyntax(`${"x = 1\n# c\n".repeat(2_000)}def (:\n`)).toMatchObject({
      line: 4_001,
      column: 5,
    });
  });

  it.each(INVALID)("refuses %j at line %i, column %i", (source, line, column) => {
    expect(checkPythonSyntax(source)).toMatchObject({ line, column });
  });

  it("says what it found", () => {
    const error = checkPythonSyntax("def (:");
    expect(error).toEqual({ line: 1, column: 5, offset: 4, message: 'invalid syntax at "("' });
    expect(formatPythonSyntaxError(error!)).toBe(
      'Python syntax error at line 1, column 5: invalid syntax at "(".',
    );
    expect(checkPythonSyntax("x = (1,\n")?.message).toBe("unexpected end of script");
    expect(checkPythonSyntax("if x\n    pass\n")?.message).toBe("unexpected end of line");
  });
});

describe("script schemas", () => {
  it("refuse data that is not Python, with line and column", () => {
    const answer = ZScriptCreate.safeParse({ name: "s", data: "x = 1\ndef (:" });
    expect(answer.success).toBe(false);
    expect(answer.error?.issues).toMatchObject([
      {
        path: ["data"],
        message: 'Python syntax error at line 2, column 5: invalid syntax at "(".',
      },
    ]);
    expect(ZScriptUpdate.safeParse({ script_id: "id", data: "def (:" }).success).toBe(false);
  });

  it("accept Python, and an update without data", () => {
    expect(ZScriptCreate.safeParse({ name: "s", data: "print('hello')" }).success).toBe(true);
    expect(ZScriptUpdate.safeParse({ script_id: "id", name: "n" }).success).toBe(true);
  });
});
