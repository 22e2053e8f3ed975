import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, PYSCRIPTS, type Client } from "./support/client.js";
import { expectCreated, expectFault, uniqueName } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// A deliberate deviation (docs/compatibility.md): CloudKitty stores any text and only fails when
// the rating processor compiles it; Ratecard refuses a script that does not parse, on save.

const SCRIPTS = `${PYSCRIPTS}/scripts`;

let server: TestServer;
let api: Client;
beforeAll(async () => {
  server = await startServer();
  api = createClient(server.baseUrl);
});
afterAll(async () => {
  await server.stop();
});

async function names(): Promise<string[]> {
  return (await api.get(SCRIPTS)).body.scripts.map((script: { name: string }) => script.name);
}

describe("P/scripts syntax check", () => {
  it("refuses a create whose data is not Python with 400, naming line and column", async () => {
    const name = uniqueName("broken");
    const answer = await api.post(SCRIPTS, { name, data: "def (:" });
    expectFault(
      answer,
      400,
      "Invalid input for field/attribute data. Value: 'def (:'. " +
        'Python syntax error at line 1, column 5: invalid syntax at "(".',
    );
    expect(await names()).not.toContain(name);
  });

  it("reports the first error of a longer script", async () => {
    const data = "import decimal\n\nfor d in data:\n    for item in d['usage']\n        pass\n";
    expectFault(
      await api.post(SCRIPTS, { name: uniqueName("colon"), data }),
      400,
      /Python syntax error at line 4, column 27: unexpected end of line\.$/,
    );
  });

  it("refuses an update whose data is not Python and keeps the stored script", async () => {
    const script = expectCreated(
      await api.post(SCRIPTS, { name: uniqueName("kept"), data: "x = 1\n" }),
    );
    expectFault(
      await api.put(`${SCRIPTS}/${script.script_id}`, { data: "x = 1\nif x\n    pass\n" }),
      400,
      /Python syntax error at line 2, column 5: unexpected end of line\.$/,
    );
    expect((await api.get(`${SCRIPTS}/${script.script_id}`)).body).toEqual(script);
  });

  it("accepts CloudKitty's documented example and modern Python", async () => {
    const data = [
      "import decimal",
      "",
      "flavors = {'m1.nano': decimal.Decimal('0.35')}",
      "",
      "def process(data):",
      "    for d in data:",
      "        for service, items in d['usage'].items():",
      "            for item in items:",
      "                match item['desc']:",
      "                    case {'flavor': flavor} if (price := flavors.get(flavor)):",
      "                        item['rating'] = {'price': price * decimal.Decimal(f\"{item['vol']['qty']}\")}",
      "                    case _:",
      "                        pass",
      "    return data",
      "",
      "data = process(data)",
      "",
    ].join("\n");
    expectCreated(await api.post(SCRIPTS, { name: uniqueName("modern"), data }));
  });
});
