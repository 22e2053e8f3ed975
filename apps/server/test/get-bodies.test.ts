import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, PYSCRIPTS, type Client } from "./support/client.js";
import { expectFault, seeder, UNKNOWN_ID } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// CloudKitty reads a GET's arguments from a JSON body too; OpenStack's API test clients send list
// filters that way. Every answer here must equal the query-string form's.

const BODY_LIMIT_BYTES = 64 * 1024;
const PYTHON = "/usr/bin/python3";

let server: TestServer;
let api: Client;
/** One keep-alive socket for every raw request: an answer that resets it fails the next request. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

interface RawAnswer {
  status: number;
  body: any;
  reusedSocket: boolean;
}

/** A GET with a body, as OpenStack's test clients send it (Node's http.request, like urllib3). */
function getWithBody(
  path: string,
  body: string | Buffer | undefined,
  headers: Record<string, string> = { "Content-Type": "application/json" },
  chunked = false,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL(path, server.baseUrl),
      {
        method: "GET",
        agent,
        // Node frames a GET's body only when told how: a length, or chunks.
        headers:
          body === undefined
            ? headers
            : chunked
              ? { ...headers, "Transfer-Encoding": "chunked" }
              : { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            body: text ? JSON.parse(text) : undefined,
            reusedSocket: request.reusedSocket,
          }),
        );
      },
    );
    request.on("error", reject);
    if (chunked && body !== undefined) {
      // Several chunks: a server that answers after the first must still read the rest.
      const bytes = Buffer.from(body);
      for (let offset = 0; offset < bytes.length; offset += 16 * 1024)
        request.write(bytes.subarray(offset, offset + 16 * 1024));
    } else if (body !== undefined) {
      request.write(body);
    }
    request.end();
  });
}

interface Seeded {
  serviceId: string;
  otherServiceId: string;
  fieldId: string;
  groupId: string;
  otherGroupId: string;
  /** A group named "_DEFAULT_", CloudKitty's name for no group: Ratecard warns about it. */
  defaultGroupId: string;
  mappingId: string;
  thresholdId: string;
}
let ids: Seeded;

beforeAll(async () => {
  server = await startServer({ env: { BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) } });
  api = createClient(server.baseUrl);
  const seed = seeder(api);
  const service = await seed.service();
  const other = await seed.service();
  const field = await seed.field(service.service_id);
  await seed.field(other.service_id);
  const group = await seed.group();
  const otherGroup = await seed.group();
  const defaultGroup = await seed.group("_DEFAULT_");
  await seed.mapping({ service_id: other.service_id, group_id: defaultGroup.group_id });
  const mapping = await seed.mapping({
    field_id: field.field_id,
    value: "m1.small",
    group_id: group.group_id,
  });
  await seed.mapping({ service_id: other.service_id, group_id: otherGroup.group_id });
  const threshold = await seed.threshold({
    field_id: field.field_id,
    level: "10",
    group_id: group.group_id,
  });
  await seed.threshold({ service_id: other.service_id, level: "5", group_id: otherGroup.group_id });
  await api.post(`${PYSCRIPTS}/scripts`, { name: "get-bodies", data: "print(1)" });
  ids = {
    serviceId: service.service_id,
    otherServiceId: other.service_id,
    fieldId: field.field_id,
    groupId: group.group_id,
    otherGroupId: otherGroup.group_id,
    defaultGroupId: defaultGroup.group_id,
    mappingId: mapping.mapping_id,
    thresholdId: threshold.threshold_id,
  };
});
afterAll(async () => {
  agent.destroy();
  await server.stop();
});

/** Each list or lookup route with a filter, and a second value of it that answers differently. */
const FILTERED_ROUTES: {
  path: string;
  name: string;
  value: (seeded: Seeded) => string;
  /** Answers differently from `value`, so a filter that is dropped shows. */
  other: (seeded: Seeded) => string;
}[] = [
  {
    path: `${HASHMAP}/fields/`,
    name: "service_id",
    value: (s) => s.serviceId,
    other: (s) => s.otherServiceId,
  },
  {
    path: `${HASHMAP}/mappings/group/`,
    name: "mapping_id",
    value: (s) => s.mappingId,
    other: () => UNKNOWN_ID,
  },
  {
    path: `${HASHMAP}/thresholds/group/`,
    name: "threshold_id",
    value: (s) => s.thresholdId,
    other: () => UNKNOWN_ID,
  },
  {
    path: `${HASHMAP}/groups/mappings/`,
    name: "group_id",
    value: (s) => s.groupId,
    other: (s) => s.otherGroupId,
  },
  {
    path: `${HASHMAP}/groups/thresholds/`,
    name: "group_id",
    value: (s) => s.groupId,
    other: (s) => s.otherGroupId,
  },
  {
    path: `${HASHMAP}/mappings/`,
    name: "group_id",
    value: (s) => s.groupId,
    other: (s) => s.otherGroupId,
  },
  {
    path: `${HASHMAP}/thresholds/`,
    name: "service_id",
    value: (s) => s.otherServiceId,
    other: (s) => s.serviceId,
  },
  {
    path: `${HASHMAP}/warnings`,
    name: "group_id",
    value: (s) => s.defaultGroupId,
    other: (s) => s.groupId,
  },
  { path: `${PYSCRIPTS}/scripts/`, name: "no_data", value: () => "true", other: () => "false" },
];

describe.each(FILTERED_ROUTES)("GET $path with $name in a JSON body", (route) => {
  const query = (value: string) => `${route.path}?${route.name}=${encodeURIComponent(value)}`;

  it("answers what the query-string form answers", async () => {
    const byQuery = await api.get(query(route.value(ids)));
    expect(byQuery.status, byQuery.text).toBe(200);
    const byBody = await getWithBody(
      route.path,
      JSON.stringify({ [route.name]: route.value(ids) }),
    );
    expect(byBody).toMatchObject({ status: 200, body: byQuery.body });
    // The filter did something: the other value answers differently.
    const otherByQuery = await api.get(query(route.other(ids)));
    expect(otherByQuery.body).not.toEqual(byQuery.body);
  });

  it("lets the query string win over the body", async () => {
    const byQuery = await api.get(query(route.value(ids)));
    const both = await getWithBody(
      query(route.value(ids)),
      JSON.stringify({ [route.name]: route.other(ids) }),
    );
    expect(both).toMatchObject({ status: byQuery.status, body: byQuery.body });
  });

  it("ignores names the route does not take", async () => {
    const byQuery = await api.get(query(route.value(ids)));
    const withExtra = await getWithBody(
      route.path,
      JSON.stringify({ [route.name]: route.value(ids), not_an_argument: 1 }),
    );
    expect(withExtra).toMatchObject({ status: 200, body: byQuery.body });
  });

  it("is a 400 fault for a malformed or non-object body", async () => {
    for (const [body, faultstring] of [
      [`{"${route.name}": `, "Request is not in valid JSON format"],
      ["[1, 2]", "Request body must be a JSON object"],
      ['"text"', "Request body must be a JSON object"],
    ] as const) {
      const answer = await getWithBody(route.path, body);
      expect(answer).toMatchObject({
        status: 400,
        body: { faultcode: "Client", faultstring, debuginfo: null },
      });
    }
  });

  it("is a 400 fault for a body over the limit, and the connection stays usable", async () => {
    const oversized = JSON.stringify({
      [route.name]: route.value(ids),
      padding: "x".repeat(BODY_LIMIT_BYTES * 4),
    });
    for (const chunked of [false, true]) {
      const answer = await getWithBody(
        route.path,
        oversized,
        { "Content-Type": "application/json" },
        chunked,
      );
      expect(answer).toMatchObject({
        status: 400,
        body: {
          faultcode: "Client",
          faultstring: `Request body is larger than the limit of ${BODY_LIMIT_BYTES} bytes`,
        },
      });
      const next = await getWithBody(
        route.path,
        JSON.stringify({ [route.name]: route.value(ids) }),
      );
      expect(next).toMatchObject({ status: 200, reusedSocket: true });
    }
  });
});

describe("GET bodies: validation and edge cases", () => {
  it("validates a body value as the query form does", async () => {
    const byQuery = await api.get(`${HASHMAP}/mappings/group/?mapping_id=${UNKNOWN_ID}`);
    const byBody = await getWithBody(
      `${HASHMAP}/mappings/group/`,
      JSON.stringify({ mapping_id: UNKNOWN_ID }),
    );
    expect(byBody).toMatchObject({ status: 404, body: byQuery.body });
    const wrongType = await getWithBody(
      `${HASHMAP}/fields/`,
      JSON.stringify({ service_id: { nested: true } }),
    );
    expect(wrongType).toMatchObject({
      status: 400,
      body: {
        faultstring: `Invalid input for field/attribute service_id. Value: '{"nested":true}'. Wrong type.`,
      },
    });
    const badBoolean = await getWithBody(
      `${PYSCRIPTS}/scripts/`,
      JSON.stringify({ no_data: "perhaps" }),
    );
    expectFault(
      await api.get(`${PYSCRIPTS}/scripts/?no_data=perhaps`),
      400,
      badBoolean.body.faultstring,
    );
    expect(badBoolean.status).toBe(400);
  });

  it("reads JSON booleans and treats null as an absent argument", async () => {
    const byQuery = await api.get(`${PYSCRIPTS}/scripts/?no_data=true`);
    expect(await getWithBody(`${PYSCRIPTS}/scripts/`, '{"no_data": true}')).toMatchObject({
      status: 200,
      body: byQuery.body,
    });
    expect(await getWithBody(`${HASHMAP}/fields/`, '{"service_id": null}')).toMatchObject({
      status: 400,
      body: { faultstring: 'Missing argument: "service_id"' },
    });
  });

  it("keeps answering bodyless GETs, an empty body and a whitespace body as before", async () => {
    const plain = await api.get(`${HASHMAP}/services/`);
    expect(plain.status).toBe(200);
    expect(await getWithBody(`${HASHMAP}/services/`, undefined, {})).toMatchObject({
      status: 200,
      body: plain.body,
    });
    expect(await getWithBody(`${HASHMAP}/services/`, "")).toMatchObject({
      status: 200,
      body: plain.body,
    });
    expect(await getWithBody(`${HASHMAP}/services/`, " \n")).toMatchObject({
      status: 200,
      body: plain.body,
    });
  });

  it("checks a path id repeated in the body like one repeated in the query", async () => {
    const answer = await getWithBody(
      `${HASHMAP}/services/${ids.serviceId}`,
      JSON.stringify({ service_id: ids.otherServiceId }),
    );
    expect(answer).toMatchObject({
      status: 400,
      body: { faultstring: expect.stringContaining("given twice with different values") },
    });
    const same = await getWithBody(
      `${HASHMAP}/services/${ids.serviceId}`,
      JSON.stringify({ service_id: ids.serviceId }),
    );
    expect(same).toMatchObject({ status: 200, body: { service_id: ids.serviceId } });
  });

  it("refuses a body that is not JSON with a 415, as on other methods", async () => {
    const answer = await getWithBody(`${HASHMAP}/fields/`, `service_id=${ids.serviceId}`, {
      "Content-Type": "application/x-www-form-urlencoded",
    });
    expect(answer).toMatchObject({
      status: 415,
      body: { faultstring: "Unknown mimetype: application/x-www-form-urlencoded" },
    });
  });
});

const hasPythonRequests =
  fs.existsSync(PYTHON) && fs.existsSync("/usr/lib/python3/dist-packages/requests");

describe.skipIf(!hasPythonRequests && !process.env.CI)("GET bodies from Python requests", () => {
  it("answers requests.get(url, json=...) as the query form", async () => {
    // requests/urllib3 send `json=` on a GET as a body with Content-Type and Content-Length.
    const script = `
import json, sys, requests
base, checks = sys.argv[1], json.load(sys.stdin)
out = []
with requests.Session() as session:
    for path, body in checks:
        answer = session.get(base + path, json=body)
        out.append([answer.status_code, answer.json()])
print(json.dumps(out))
`;
    const checks = FILTERED_ROUTES.map((route) => [route.path, { [route.name]: route.value(ids) }]);
    const oversized = [
      `${HASHMAP}/fields/`,
      { service_id: ids.serviceId, padding: "x".repeat(BODY_LIMIT_BYTES * 2) },
    ];
    const python = promisify(execFile)(PYTHON, ["-c", script, server.baseUrl], {
      maxBuffer: 16 * 1024 * 1024,
    });
    python.child.stdin!.end(JSON.stringify([...checks, oversized]));
    const { stdout } = await python;
    const answers = JSON.parse(stdout) as [number, unknown][];
    for (const [index, route] of FILTERED_ROUTES.entries()) {
      const byQuery = await api.get(
        `${route.path}?${route.name}=${encodeURIComponent(route.value(ids))}`,
      );
      expect(answers[index], route.path).toEqual([200, byQuery.body]);
    }
    expect(answers.at(-1)).toEqual([
      400,
      {
        faultcode: "Client",
        faultstring: `Request body is larger than the limit of ${BODY_LIMIT_BYTES} bytes`,
        debuginfo: null,
      },
    ]);
  });
});
