import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, PYSCRIPTS, type Client } from "./support/client.js";
import { expectCreated, expectFault, uniqueName } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

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

const sha512 = (text: string) => createHash("sha512").update(text, "utf8").digest("hex");

async function createScript(data = "print('rating')", name = uniqueName("script")) {
  return expectCreated(await api.post(SCRIPTS, { name, data }));
}

async function stored(scriptId: string) {
  const answer = await api.get(`${SCRIPTS}/${scriptId}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

describe("P/scripts create", () => {
  it("answers 201 with Location and the SHA-512 of the UTF-8 data, keys in CloudKitty's order", async () => {
    const data = "# Coût: 0,5 € ✓ — 日本語 🚀\nimport decimal\n";
    const name = uniqueName("unicode");
    const answer = await api.post(`${SCRIPTS}/`, { name, data });
    expect(answer.status).toBe(201);
    const scriptId = answer.body.script_id;
    expect(answer.headers.get("location")).toBe(`${server.baseUrl}${SCRIPTS}/${scriptId}`);
    expect(Object.keys(answer.body)).toEqual([
      "script_id",
      "name",
      "data",
      "checksum",
      // CloudKitty master's lifecycle (docs/lifecycle.md); a script's name is its own key.
      "created_at",
      "start",
      "end",
      "description",
      "deleted",
      "created_by",
      "updated_by",
      "deleted_by",
    ]);
    expect(answer.body).toEqual({
      script_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name,
      data,
      checksum: sha512(data),
      created_at: expect.any(String),
      start: answer.body.created_at,
      end: null,
      description: null,
      deleted: null,
      created_by: "noauth",
      updated_by: null,
      deleted_by: null,
    });
    // Not the SHA-512 of the UTF-16 code units or of a Latin-1 reading.
    expect(answer.body.checksum).not.toBe(
      createHash("sha512").update(Buffer.from(data, "latin1")).digest("hex"),
    );
    expect(await stored(scriptId)).toEqual(answer.body);
  });

  it("ignores a client-supplied script_id", async () => {
    const wanted = "12345678-1234-4234-8234-123456789012";
    const created = expectCreated(
      await api.post(SCRIPTS, { name: uniqueName("own-id"), data: "x", script_id: wanted }),
    );
    expect(created.script_id).not.toBe(wanted);
    expect((await api.get(`${SCRIPTS}/${wanted}`)).status).toBe(404);
  });

  it("refuses a duplicate name with 409 naming the existing script, and stores nothing", async () => {
    const existing = await createScript("a = 1");
    expectFault(
      await api.post(SCRIPTS, { name: existing.name, data: "a = 2" }),
      409,
      `Script ${existing.name} already exists (UUID: ${existing.script_id})`,
    );
    const { scripts } = (await api.get(SCRIPTS)).body;
    expect(scripts.filter((script: { name: string }) => script.name === existing.name)).toEqual([
      existing,
    ]);
  });

  it("refuses missing or non-string data with 400, never 500", async () => {
    const name = uniqueName("no-data");
    expectFault(
      await api.post(SCRIPTS, { name }),
      400,
      "Invalid input for field/attribute data. Value: 'None'. Mandatory field missing.",
    );
    expectFault(
      await api.post(SCRIPTS, { name, data: null }),
      400,
      /^Invalid input for field\/attribute data\. /,
    );
    expectFault(
      await api.post(SCRIPTS, { name, data: 42 }),
      400,
      /^Invalid input for field\/attribute data\. /,
    );
    expectFault(
      await api.post(SCRIPTS, { data: "x" }),
      400,
      /^Invalid input for field\/attribute name\. Value: 'None'\./,
    );
    expect(
      (await api.get(SCRIPTS)).body.scripts.map((script: { name: string }) => script.name),
    ).not.toContain(name);
  });

  it("refuses a checksum in the body: it is computed by the server", async () => {
    const name = uniqueName("checksum");
    expectFault(
      await api.post(SCRIPTS, { name, data: "x", checksum: sha512("x") }),
      400,
      /^Invalid input for field\/attribute checksum\./,
    );
    expect(
      (await api.get(SCRIPTS)).body.scripts.map((script: { name: string }) => script.name),
    ).not.toContain(name);
  });

  it("refuses data with a lone UTF-16 surrogate with 400 (it is not text), never 500", async () => {
    const name = uniqueName("surrogate");
    const answer = await api.post(SCRIPTS, `{"name": "${name}", "data": "a\\ud800b"}`);
    expectFault(answer, 400, /lone UTF-16 surrogate/);
    // A well-formed pair is text and is kept.
    const pair = expectCreated(
      await api.post(SCRIPTS, `{"name": "${uniqueName("pair")}", "data": "a\\ud83d\\ude80b"}`),
    );
    expect(pair.data).toBe("a🚀b");
    expect(pair.checksum).toBe(sha512("a🚀b"));
  });

  it("accepts a script of over 1 MiB and returns it byte for byte", async () => {
    const line = "cost = Decimal('0.0001') # 2€ ✓\n";
    const data = line.repeat(Math.ceil((1024 * 1024 + 1) / Buffer.byteLength(line)));
    expect(Buffer.byteLength(data)).toBeGreaterThan(1024 * 1024);
    const created = expectCreated(await api.post(SCRIPTS, { name: uniqueName("large"), data }));
    expect(created.checksum).toBe(sha512(data));
    const answer = await api.get(`${SCRIPTS}/${created.script_id}`);
    expect(answer.body.data === data).toBe(true);
    expect(Buffer.from(answer.body.data, "utf8").equals(Buffer.from(data, "utf8"))).toBe(true);
    expect(answer.body.checksum).toBe(sha512(data));
  });
});

describe("P/scripts list", () => {
  it("lists scripts in creation order with their data", async () => {
    const first = await createScript("one = 1");
    const second = await createScript("two = 2");
    const { scripts } = (await api.get(SCRIPTS)).body;
    const ours = scripts.filter((script: { script_id: string }) =>
      [first.script_id, second.script_id].includes(script.script_id),
    );
    expect(ours).toEqual([first, second]);
  });

  it.each(["true", "True", "1", "yes"])("leaves data out with no_data=%s", async (flag) => {
    const script = await createScript();
    const answer = await api.get(SCRIPTS, { query: { no_data: flag } });
    expect(answer.status).toBe(200);
    const listed = answer.body.scripts.find(
      (entry: { script_id: string }) => entry.script_id === script.script_id,
    );
    const { data: _data, ...withoutData } = script;
    expect(listed).toEqual(withoutData);
    expect(Object.keys(listed)).toEqual(Object.keys(withoutData));
    expect(Object.keys(listed).slice(0, 3)).toEqual(["script_id", "name", "checksum"]);
    expect(answer.body.scripts.every((entry: object) => !("data" in entry))).toBe(true);
  });

  it.each(["false", "False", "0", ""])("keeps data with no_data=%j", async (flag) => {
    const script = await createScript();
    const answer = await api.get(SCRIPTS, { query: { no_data: flag } });
    expect(answer.status).toBe(200);
    expect(answer.body.scripts).toContainEqual(script);
  });

  it("refuses a no_data that is not a boolean with 400", async () => {
    expectFault(
      await api.get(SCRIPTS, { query: { no_data: "maybe" } }),
      400,
      /^Invalid input for field\/attribute no_data\. Value: 'maybe'\./,
    );
  });
});

describe("P/scripts/{id} get", () => {
  it("gets a script, with or without a trailing slash", async () => {
    const script = await createScript();
    expect((await api.get(`${SCRIPTS}/${script.script_id}`)).body).toEqual(script);
    expect((await api.get(`${SCRIPTS}/${script.script_id}/`)).body).toEqual(script);
  });

  it("answers 404 with CloudKitty's message for an unknown id, UUID or not", async () => {
    const unknown = "00000000-0000-4000-8000-00000000abcd";
    expectFault(
      await api.get(`${SCRIPTS}/${unknown}`),
      404,
      `No such script: None (UUID: ${unknown})`,
    );
    expectFault(
      await api.get(`${SCRIPTS}/not-a-uuid`),
      404,
      "No such script: None (UUID: not-a-uuid)",
    );
  });
});

describe("P/scripts/{id} update", () => {
  it("renames a script; the data and checksum stay", async () => {
    const script = await createScript("keep = 1");
    const name = uniqueName("renamed");
    const answer = await api.put(`${SCRIPTS}/${script.script_id}`, { name });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...script, name, updated_by: "noauth" });
    expect(await stored(script.script_id)).toEqual({ ...script, name, updated_by: "noauth" });
  });

  it("replaces the data; the checksum follows", async () => {
    const script = await createScript("old = 1");
    const data = "new = 2 # ✓";
    const answer = await api.put(`${SCRIPTS}/${script.script_id}`, { data });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...script, data, checksum: sha512(data), updated_by: "noauth" });
    expect(answer.body.checksum).not.toBe(script.checksum);
    expect(await stored(script.script_id)).toEqual(answer.body);
  });

  it("takes the whole object the CLI sends (script_id, name, data)", async () => {
    const script = await createScript("a = 1");
    const body = { script_id: script.script_id, name: uniqueName("whole"), data: "a = 2" };
    const answer = await api.put(`${SCRIPTS}/${script.script_id}`, body);
    expect(answer.body).toEqual({
      ...script,
      ...body,
      checksum: sha512("a = 2"),
      updated_by: "noauth",
    });
  });

  it("refuses to set the checksum with 400, and changes nothing", async () => {
    const script = await createScript("c = 1");
    expectFault(
      await api.put(`${SCRIPTS}/${script.script_id}`, { data: "c = 2", checksum: sha512("c = 2") }),
      400,
      /^Invalid input for field\/attribute checksum\./,
    );
    expect(await stored(script.script_id)).toEqual(script);
  });

  it("refuses a rename onto an existing name with 409, and changes nothing", async () => {
    const taken = await createScript("t = 1");
    const script = await createScript("s = 1");
    expectFault(
      await api.put(`${SCRIPTS}/${script.script_id}`, { name: taken.name, data: "s = 2" }),
      409,
      `Script ${taken.name} already exists (UUID: ${taken.script_id})`,
    );
    expect(await stored(script.script_id)).toEqual(script);
    expect(await stored(taken.script_id)).toEqual(taken);
  });

  it("keeps its own name without a conflict", async () => {
    const script = await createScript("same = 1");
    const answer = await api.put(`${SCRIPTS}/${script.script_id}`, {
      name: script.name,
      data: "same = 2",
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      ...script,
      data: "same = 2",
      checksum: sha512("same = 2"),
      updated_by: "noauth",
    });
  });

  it("answers 404 for an unknown script", async () => {
    const unknown = "00000000-0000-4000-8000-00000000beef";
    expectFault(
      await api.put(`${SCRIPTS}/${unknown}`, { name: uniqueName("ghost") }),
      404,
      `No such script: None (UUID: ${unknown})`,
    );
  });

  it("refuses an empty name or a non-string data with 400, and changes nothing", async () => {
    const script = await createScript("v = 1");
    expectFault(
      await api.put(`${SCRIPTS}/${script.script_id}`, { name: "  " }),
      400,
      /^Invalid input for field\/attribute name\./,
    );
    expectFault(
      await api.put(`${SCRIPTS}/${script.script_id}`, { data: ["v = 2"] }),
      400,
      /^Invalid input for field\/attribute data\./,
    );
    expect(await stored(script.script_id)).toEqual(script);
  });
});

describe("P/scripts/{id} delete", () => {
  it("deletes by path with 204 and an empty body; then the script is gone", async () => {
    const script = await createScript();
    const answer = await api.delete(`${SCRIPTS}/${script.script_id}`);
    expect(answer.status).toBe(204);
    expect(answer.text).toBe("");
    expectFault(
      await api.get(`${SCRIPTS}/${script.script_id}`),
      404,
      `No such script: None (UUID: ${script.script_id})`,
    );
    expect((await api.get(SCRIPTS)).body.scripts).not.toContainEqual(script);
    // Its name is free again.
    expectCreated(await api.post(SCRIPTS, { name: script.name, data: "again" }));
  });

  it("answers 404 for an unknown script or one already deleted", async () => {
    const script = await createScript();
    expect((await api.delete(`${SCRIPTS}/${script.script_id}`)).status).toBe(204);
    expectFault(
      await api.delete(`${SCRIPTS}/${script.script_id}`),
      404,
      `No such script: None (UUID: ${script.script_id})`,
    );
  });
});
