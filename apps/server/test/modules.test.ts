import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type Client } from "./support/client.js";
import { expectFault } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

const MODULES = "/v1/rating/modules";
const MODULE_KEYS = ["module_id", "description", "enabled", "hot-config", "priority"];

let server: TestServer;
let api: Client;
beforeAll(async () => {
  server = await startServer();
  api = createClient(server.baseUrl);
});
afterAll(async () => {
  await server.stop();
});

async function module(moduleId: string) {
  const answer = await api.get(`${MODULES}/${moduleId}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

describe("GET /v1/rating/modules", () => {
  it("lists hashmap, noop and pyscripts, with CloudKitty's keys in CloudKitty's order", async () => {
    const answer = await api.get(`${MODULES}/`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(Object.keys(answer.body)).toEqual(["modules"]);
    expect(answer.body.modules.map((entry: { module_id: string }) => entry.module_id)).toEqual([
      "hashmap",
      "noop",
      "pyscripts",
    ]);
    for (const entry of answer.body.modules) expect(Object.keys(entry)).toEqual(MODULE_KEYS);
    // The JSON text itself, as clients that do not parse it see it.
    expect(answer.text).toContain(
      '{"module_id":"hashmap","description":"HashMap rating module.","enabled":true,"hot-config":true,"priority":1}',
    );
    expect(answer.body.modules).toEqual([
      {
        module_id: "hashmap",
        description: "HashMap rating module.",
        enabled: true,
        "hot-config": true,
        priority: 1,
      },
      {
        module_id: "noop",
        description: "Dummy test module.",
        enabled: false,
        "hot-config": false,
        priority: 1,
      },
      {
        module_id: "pyscripts",
        description: "PyScripts rating module.",
        enabled: true,
        "hot-config": true,
        priority: 1,
      },
    ]);
  });

  it("gets one module, also with the module_id query the CLI adds", async () => {
    const pyscripts = await module("pyscripts");
    expect(Object.keys(pyscripts)).toEqual(MODULE_KEYS);
    expect(pyscripts).toEqual({
      module_id: "pyscripts",
      description: "PyScripts rating module.",
      enabled: true,
      "hot-config": true,
      priority: 1,
    });
    expect(
      (await api.get(`${MODULES}/pyscripts`, { query: { module_id: "pyscripts" } })).body,
    ).toEqual(pyscripts);
  });

  it("answers 404 with CloudKitty's message for an unknown module", async () => {
    expectFault(await api.get(`${MODULES}/nope`), 404, "Module not found.");
  });
});

describe("PUT /v1/rating/modules/{id}", () => {
  it("disables and enables a module; the change is kept", async () => {
    const disabled = await api.put(`${MODULES}/hashmap`, { enabled: false });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toEqual({ ...(await module("hashmap")), enabled: false });
    expect((await module("hashmap")).enabled).toBe(false);
    const listed = (await api.get(MODULES)).body.modules.find(
      (entry: { module_id: string }) => entry.module_id === "hashmap",
    );
    expect(listed.enabled).toBe(false);

    const enabled = await api.put(`${MODULES}/hashmap`, { enabled: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body.enabled).toBe(true);
    expect((await module("hashmap")).enabled).toBe(true);
  });

  it("sets the priority and leaves what is omitted alone", async () => {
    const before = await module("pyscripts");
    const answer = await api.put(`${MODULES}/pyscripts`, { priority: 7 });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...before, priority: 7 });
    expect(await module("pyscripts")).toEqual({ ...before, priority: 7 });
    expect((await api.put(`${MODULES}/pyscripts`, { priority: -2 })).body.priority).toBe(-2);
    expect((await api.put(`${MODULES}/pyscripts`, { priority: 1 })).body.priority).toBe(1);
  });

  it("takes the whole object the CLI sends; the module is the one in the path", async () => {
    const noop = await module("noop");
    const answer = await api.put(`${MODULES}/noop`, {
      ...noop,
      module_id: "noop",
      enabled: true,
      priority: 3,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...noop, enabled: true, priority: 3 });
    // Description and hot-config are CloudKitty's to say: a PUT does not change them.
    const renamed = await api.put(`${MODULES}/noop`, {
      ...noop,
      description: "Something else",
      "hot-config": true,
    });
    expect(renamed.body).toMatchObject({
      description: noop.description,
      "hot-config": noop["hot-config"],
    });
    await api.put(`${MODULES}/noop`, { enabled: false, priority: 1 });
    expect(await module("noop")).toEqual(noop);
  });

  it.each([
    ["enabled", "false", "Value: 'false'"],
    ["enabled", "true", "Value: 'true'"],
    ["enabled", 0, "Value: '0'"],
    ["enabled", null, "Value: 'None'"],
    ["priority", "3", "Value: '3'"],
    ["priority", 2.5, "Value: '2.5'"],
  ])("refuses %s = %j with 400 and never coerces it", async (key, value, shown) => {
    const before = await module("hashmap");
    expectFault(
      await api.put(`${MODULES}/hashmap`, { [key]: value }),
      400,
      new RegExp(
        `^Invalid input for field/attribute ${key}\\. ${shown.replace(/[.]/g, "\\.")}\\. `,
      ),
    );
    expect(await module("hashmap")).toEqual(before);
  });

  it('refuses "enabled": "false" on an enabled module: it stays enabled, never true by coercion', async () => {
    await api.put(`${MODULES}/noop`, { enabled: false });
    expectFault(
      await api.put(`${MODULES}/noop`, { enabled: "false" }),
      400,
      /^Invalid input for field\/attribute enabled\. Value: 'false'\./,
    );
    expect((await module("noop")).enabled).toBe(false);
  });

  it("refuses unknown attributes with CloudKitty's message", async () => {
    expectFault(
      await api.put(`${MODULES}/hashmap`, { enabled: true, foo: 1 }),
      400,
      "Unknown attribute for argument module: foo",
    );
  });

  it("answers 404 for an unknown module and creates nothing", async () => {
    expectFault(await api.put(`${MODULES}/nope`, { enabled: true }), 404, "Module not found.");
    expect((await api.get(MODULES)).body.modules).toHaveLength(3);
  });
});

describe("GET /v1/rating/reload_modules", () => {
  it("answers 204 with an empty body, with or without a trailing slash", async () => {
    for (const path of ["/v1/rating/reload_modules", "/v1/rating/reload_modules/"]) {
      const answer = await api.get(path);
      expect(answer.status).toBe(204);
      expect(answer.text).toBe("");
    }
  });

  it("is a GET only", async () => {
    const answer = await api.request("POST", "/v1/rating/reload_modules");
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("GET");
  });
});
