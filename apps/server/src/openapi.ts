import type { AnyRouter } from "@trpc/server";
import { generateOpenApiDocument } from "trpc-to-openapi";
import { collectRestRoutes } from "./rest/routes.js";

type OpenApiDocument = ReturnType<typeof generateOpenApiDocument>;
type SchemaObject = NonNullable<NonNullable<OpenApiDocument["components"]>["schemas"]>[string];
type Operation = {
  responses?: Record<string, unknown>;
  description?: string;
  parameters?: unknown[];
};

const FAULT_SCHEMA: SchemaObject = {
  type: "object",
  description: "CloudKitty's error body: faultcode is Client for 4xx answers and Server for 5xx.",
  required: ["faultcode", "faultstring", "debuginfo"],
  properties: {
    faultcode: { type: "string", enum: ["Client", "Server"] },
    faultstring: { type: "string", examples: ["No such service: None (UUID: 5d3b...)"] },
    debuginfo: { type: "null" },
  },
};

const faultResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Fault" } } },
});

/**
 * The OpenAPI 3.1 document of the REST API. trpc-to-openapi documents every success as 200 and
 * its own error shape; this rewrites both to what the server really answers.
 */
export function buildOpenApiDocument(router: AnyRouter, version: string): OpenApiDocument {
  const document = generateOpenApiDocument(router, {
    title: "Ratecard: CloudKitty rating configuration API",
    description:
      "A drop-in replacement for the configuration API of CloudKitty's hashmap and pyscripts rating " +
      "modules. Trailing slashes are ignored. DELETE also takes the id in the query string or in a " +
      "JSON body sent to the collection; PUT of mappings and thresholds takes it in the query string " +
      "or the body of PUT on the collection. See docs/compatibility.md for every difference from CloudKitty 17.",
    version,
    baseUrl: "/",
  });
  // Ratecard has no authentication of its own (like CloudKitty with noauth): no security scheme.
  const { securitySchemes, ...components } = document.components ?? {};
  // trpc-to-openapi's error schemas describe its own error body, which the REST layer never sends.
  const schemas = Object.fromEntries(
    Object.entries(components.schemas ?? {}).filter(([name]) => !name.startsWith("error.")),
  );
  document.components = { ...components, schemas: { ...schemas, Fault: FAULT_SCHEMA } };
  for (const route of collectRestRoutes(router)) {
    const pathItem = document.paths?.[route.template] as Record<string, Operation> | undefined;
    const operation = pathItem?.[route.method.toLowerCase()];
    if (!operation?.responses) continue;
    const success = operation.responses["200"] as Record<string, unknown> | undefined;
    const responses: Record<string, unknown> = {};
    if (route.method === "POST" && !route.action) {
      responses["201"] = {
        ...success,
        description: "Created",
        headers: {
          Location: {
            description: "Absolute URL of the new object",
            schema: { type: "string", format: "uri" },
          },
        },
      };
    } else if (route.method === "DELETE" || route.template.endsWith("/reload_modules")) {
      responses["204"] = { description: "Done; empty body" };
    } else if (success) {
      responses["200"] = success;
    }
    responses["400"] = faultResponse("Invalid input");
    // An action on one object (POST /v1/ratecard/targets/{target_id}/probe) names it in the path.
    if (route.idParam || route.pathParams.length > 0 || route.template.endsWith("/group"))
      responses["404"] = faultResponse("No such object");
    if (/^\/v1\/info\/(metrics|services)/.test(route.template))
      responses["405"] = faultResponse("No metrics in the configuration (METRICS_FILE)");
    if (route.method === "POST" || route.method === "PUT") {
      if (!route.template.startsWith("/v1/rating/modules")) {
        responses["409"] = faultResponse("Conflicts with an existing object");
      }
      responses["413"] = faultResponse("Request body too large");
      responses["415"] = faultResponse("Body is not JSON");
    }
    responses["500"] = faultResponse("Server error");
    operation.responses = responses;
  }
  return document;
}
