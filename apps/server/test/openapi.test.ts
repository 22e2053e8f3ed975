import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter, type RatecardMeta } from "@ratecard/api";
import { createClient, type Client } from "./support/client.js";
import { startServer, type TestServer } from "./support/server.js";

let server: TestServer;
let api: Client;
let document: any;
beforeAll(async () => {
  server = await startServer();
  api = createClient(server.baseUrl);
  document = (await api.get("/v1/openapi.json")).body;
});
afterAll(async () => {
  await server.stop();
});

interface RouterRoute {
  method: string;
  path: string;
}

/** The POSTs that act rather than create (RatecardMeta.action), as "POST <path>". */
function actionRoutes(): Set<string> {
  const procedures = appRouter._def.procedures as unknown as Record<
    string,
    { _def: { meta?: RatecardMeta } }
  >;
  return new Set(
    Object.values(procedures)
      .map((procedure) => procedure._def.meta)
      .filter((meta) => meta?.action && meta.openapi)
      .map((meta) => `POST ${meta!.openapi!.path}`),
  );
}

/** Every REST route the router declares (procedures with `meta.openapi`). */
function routerRoutes(): RouterRoute[] {
  const procedures = appRouter._def.procedures as unknown as Record<
    string,
    { _def: { meta?: RatecardMeta } }
  >;
  return Object.values(procedures)
    .map((procedure) => procedure._def.meta?.openapi)
    .filter((openapi) => openapi !== undefined)
    .map((openapi) => ({ method: openapi.method.toLowerCase(), path: openapi.path }));
}

function documentedRoutes(): RouterRoute[] {
  return Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
    ([path, item]) =>
      Object.keys(item)
        .filter((key) => ["get", "put", "post", "delete", "patch"].includes(key))
        .map((method) => ({ method, path })),
  );
}

const key = (route: RouterRoute) => `${route.method.toUpperCase()} ${route.path}`;
const operation = (route: RouterRoute) => document.paths[route.path][route.method];
const FAULT_REF = { $ref: "#/components/schemas/Fault" };

/** Resolves `#/components/...` references; throws on one that points nowhere. */
function resolve(ref: string): unknown {
  let target: any = document;
  for (const part of ref.replace(/^#\//, "").split("/")) {
    target = target?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
  return target;
}

function collectRefs(node: unknown, into: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) collectRefs(item, into);
  else if (node && typeof node === "object") {
    for (const [name, value] of Object.entries(node)) {
      if (name === "$ref" && typeof value === "string") into.push(value);
      else collectRefs(value, into);
    }
  }
  return into;
}

describe("GET /v1/openapi.json", () => {
  it("is an OpenAPI 3.1 document served as JSON", async () => {
    const answer = await api.get("/v1/openapi.json");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.headers.get("x-openstack-request-id")).toMatch(/^req-/);
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
  });

  it("documents exactly the REST routes of the router", () => {
    const declared = routerRoutes().map(key).sort();
    expect(declared.length).toBeGreaterThan(30);
    expect(documentedRoutes().map(key).sort()).toEqual(declared);
  });

  it("documents only routes the server answers", async () => {
    for (const route of documentedRoutes()) {
      const path = route.path.replace(/\{\w+\}/g, "00000000-0000-4000-8000-000000000000");
      const answer = await api.request(
        route.method.toUpperCase(),
        path,
        route.method === "post" || route.method === "put" ? { body: {} } : {},
      );
      // A documented 405 is an answer of the route (/v1/info/metrics without METRICS_FILE).
      if (!operation(route).responses["405"])
        expect(answer.status, `${key(route)}: ${answer.text}`).not.toBe(405);
      expect(answer.body?.faultstring ?? "", key(route)).not.toMatch(/^Resource not found/);
      expect(answer.status, `${key(route)}: ${answer.text}`).toBeLessThan(500);
      expect(Object.keys(operation(route).responses), key(route)).toContain(String(answer.status));
    }
  });

  it("documents creates as 201 with a Location header, and no 200", () => {
    const creates = documentedRoutes().filter(
      (route) => route.method === "post" && !actionRoutes().has(key(route)),
    );
    expect(creates.map(key)).toContain("POST /v1/rating/module_config/hashmap/services");
    expect(creates.map(key)).not.toContain("POST /v1/rating/quote");
    for (const route of creates) {
      const responses = operation(route).responses;
      expect(responses["200"], key(route)).toBeUndefined();
      expect(responses["201"].headers.Location.schema, key(route)).toMatchObject({
        type: "string",
      });
      expect(responses["201"].content["application/json"].schema, key(route)).toBeDefined();
    }
  });

  it("documents deletes and reload_modules as 204 without a body", () => {
    const empty = documentedRoutes().filter(
      (route) => route.method === "delete" || route.path === "/v1/rating/reload_modules",
    );
    expect(empty.length).toBeGreaterThanOrEqual(7);
    for (const route of empty) {
      const responses = operation(route).responses;
      expect(
        Object.keys(responses).filter((status) => status.startsWith("2")),
        key(route),
      ).toEqual(["204"]);
      expect(responses["204"].content, key(route)).toBeUndefined();
    }
  });

  it("documents every other success as 200 JSON (quotes, plans, probes and reads)", () => {
    expect(actionRoutes()).toContain("POST /v1/rating/quote");
    expect(actionRoutes()).toContain("POST /v1/ratecard/ruleset/plan");
    for (const route of documentedRoutes()) {
      if (
        (route.method === "post" && !actionRoutes().has(key(route))) ||
        route.method === "delete" ||
        route.path === "/v1/rating/reload_modules"
      )
        continue;
      const responses = operation(route).responses;
      expect(
        Object.keys(responses).filter((status) => status.startsWith("2")),
        key(route),
      ).toEqual(["200"]);
      expect(responses["200"].content["application/json"].schema, key(route)).toBeDefined();
    }
  });

  it("documents every error with CloudKitty's Fault schema, and no other error shape", () => {
    expect(document.components.schemas.Fault).toMatchObject({
      type: "object",
      required: ["faultcode", "faultstring", "debuginfo"],
      properties: { faultcode: { enum: ["Client", "Server"] }, faultstring: { type: "string" } },
    });
    for (const route of documentedRoutes()) {
      const responses = operation(route).responses;
      const errors = Object.keys(responses).filter((status) => Number(status) >= 400);
      expect(errors, key(route)).toContain("400");
      expect(errors, key(route)).toContain("500");
      for (const status of errors) {
        expect(
          responses[status].content["application/json"].schema,
          `${key(route)} ${status}`,
        ).toEqual(FAULT_REF);
      }
      // An item route can miss its object; a list under an item (services/{id}/fields) is empty.
      if (/\{\w+\}$/.test(route.path)) expect(errors, key(route)).toContain("404");
    }
    // trpc-to-openapi's own error schemas would describe a body the server never sends.
    expect(
      Object.keys(document.components.schemas).filter((name) => name.startsWith("error.")),
    ).toEqual([]);
  });

  it("declares every path parameter, and every $ref resolves to a schema that is used", () => {
    for (const route of documentedRoutes()) {
      const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      const parameters = (operation(route).parameters ?? []) as {
        name: string;
        in: string;
        required?: boolean;
      }[];
      for (const name of names) {
        expect(parameters, `${key(route)} ${name}`).toContainEqual(
          expect.objectContaining({ name, in: "path", required: true }),
        );
      }
    }
    const refs = collectRefs(document.paths);
    for (const ref of new Set([...refs, ...collectRefs(document.components)]))
      expect(() => resolve(ref), ref).not.toThrow();
    const used = new Set(refs.map((ref) => ref.split("/").pop()));
    const reachable = new Set(collectRefs(document.components).map((ref) => ref.split("/").pop()));
    for (const name of Object.keys(document.components.schemas)) {
      expect(used.has(name) || reachable.has(name), `unused schema ${name}`).toBe(true);
    }
  });

  it("documents the objects with CloudKitty's keys", () => {
    const schemas = document.components.schemas;
    expect(Object.keys(schemas.Mapping.properties)).toEqual([
      "mapping_id",
      "value",
      "type",
      "cost",
      "service_id",
      "field_id",
      "group_id",
      "tenant_id",
      // CloudKitty master's lifecycle (docs/lifecycle.md).
      "created_at",
      "start",
      "end",
      "name",
      "description",
      "deleted",
      "created_by",
      "updated_by",
      "deleted_by",
    ]);
    expect(Object.keys(schemas.Script.properties)).toEqual([
      "script_id",
      "name",
      "data",
      "checksum",
      "created_at",
      "start",
      "end",
      "description",
      "deleted",
      "created_by",
      "updated_by",
      "deleted_by",
    ]);
    expect(Object.keys(schemas.RatingModule.properties)).toEqual([
      "module_id",
      "description",
      "enabled",
      "hot-config",
      "priority",
    ]);
  });
});

describe("GET /docs", () => {
  it("is an HTML page that loads everything from the server itself", async () => {
    for (const path of ["/docs", "/docs/"]) {
      const page = await fetch(`${server.baseUrl}${path}`);
      await page.arrayBuffer();
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    }
    const html = await fetch(`${server.baseUrl}/docs`).then((answer) => answer.text());
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/(src|href)="\/\//);
    expect(html).toContain('"/v1/openapi.json"');
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      expect(asset).toMatch(/^\/[^/]/);
      const answer = await fetch(`${server.baseUrl}${asset}`);
      const body = await answer.arrayBuffer();
      expect(answer.status, asset).toBe(200);
      expect(body.byteLength, asset).toBeGreaterThan(1000);
      expect(answer.headers.get("content-type"), asset).toMatch(
        asset.endsWith(".css") ? /^text\/css/ : /javascript/,
      );
    }
  });

  it("answers 404 in CloudKitty's fault shape for a missing asset", async () => {
    const answer = await api.get("/docs/assets/nope.js");
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({
      faultcode: "Client",
      faultstring: "Resource not found: /docs/assets/nope.js",
      debuginfo: null,
    });
  });
});
