import type { IncomingMessage, ServerResponse } from "node:http";
import {
  callTRPCProcedure,
  getTRPCErrorFromUnknown,
  type AnyProcedure,
  type AnyRouter,
} from "@trpc/server";
import {
  coerceSchema,
  getInputOutputParsers,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  TRPC_ERROR_CODE_HTTP_STATUS,
  unwrapZodType,
  zodSupportsCoerce,
} from "trpc-to-openapi";
import { ZodArray } from "zod/v4";
import type { Context } from "@ratecard/api";
import { announcesBody, discardBody } from "../http-body.js";
import { expectedRevisionOf, takeRevision } from "./entity-tags.js";
import { describeValidationIssue, HttpFault, sendFault, type ValidationIssue } from "./faults.js";
import { readJsonBody, type JsonObject } from "./json-body.js";
import {
  collectRestRoutes,
  isControllerWithoutMethods,
  normalizePath,
  type RestRoute,
} from "./routes.js";

// CloudKitty's wire behaviour in front of trpc-to-openapi: where ids may come from, trailing
// slashes, JSON bodies read exactly (on GET too), 201 + Location, 204, 405, 413, 415 and the fault
// shape.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface ResolvedRoute {
  route: RestRoute;
  path: string;
}

export interface RestHandlerOptions {
  router: AnyRouter;
  /** The origin the client sees (`https://rating.example.com`), for Location headers. */
  origin: (req: IncomingMessage) => string;
  createContext: (req: IncomingMessage) => Context;
  bodyLimitBytes: number;
  onInternalError: (error: unknown, req: IncomingMessage) => void;
}

/** If-None-Match's weak comparison (RFC 9110): `*`, or one of its tags with or without `W/`. */
function matchesEntityTag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

function readQuery(url: URL): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) {
    if (key in query) throw new HttpFault(400, `Parameter "${key}" is given more than once`);
    query[key] = value;
  }
  return query;
}

function queryValue(key: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "boolean" || typeof value === "number") return String(value);
  throw new HttpFault(
    400,
    `Invalid input for field/attribute ${key}. Value: '${JSON.stringify(value)}'. Wrong type.`,
  );
}

function resolveRoute(
  routes: RestRoute[],
  method: string,
  path: string,
): ResolvedRoute | { relocate: RestRoute } {
  const direct = routes.find((route) => route.method === method && route.pattern.test(path));
  if (direct) return { route: direct, path };
  // DELETE and PUT on a collection carry the id in the query string or the body (the CLI's form).
  const relocatable = routes.find(
    (route) => route.method === method && route.collection?.test(path),
  );
  if (relocatable && (method === "DELETE" || method === "PUT")) return { relocate: relocatable };
  const allowed = [
    ...new Set(routes.filter((route) => route.pattern.test(path)).map((route) => route.method)),
  ];
  if (allowed.length > 0 || isControllerWithoutMethods(path)) {
    throw new HttpFault(405, `The method ${method} is not allowed for this resource`, {
      Allow: allowed.join(", "),
    });
  }
  throw new HttpFault(404, `Resource not found: ${path}`);
}

/**
 * Takes a relocated id out of the query or the body; ids inside JSON bodies must be UUIDs. A DELETE
 * body holds parameters, so its id beside the query's is the same parameter given twice; a PUT body
 * is the object, which may repeat its own id.
 */
function takeId(
  param: string,
  query: Record<string, string>,
  body: JsonObject | undefined,
  bodyHoldsParameters: boolean,
): string {
  const fromQuery = query[param];
  if (fromQuery !== undefined) {
    if (bodyHoldsParameters && body?.[param] !== undefined) {
      throw new HttpFault(
        400,
        `Parameter "${param}" is given in both the query string and the body`,
      );
    }
    delete query[param];
    return fromQuery;
  }
  const fromBody = body?.[param];
  if (fromBody === undefined || fromBody === null)
    throw new HttpFault(400, `Missing argument: "${param}"`);
  if (typeof fromBody !== "string" || !UUID.test(fromBody)) {
    const shown = typeof fromBody === "string" ? fromBody : JSON.stringify(fromBody);
    throw new HttpFault(
      400,
      `Invalid input for field/attribute ${param}. Value: '${shown}'. Invalid UUID, got '${shown}'`,
    );
  }
  return fromBody;
}

/**
 * A path parameter may be repeated in the query string or the body (a PUT often sends the whole
 * object), but never as another id: CloudKitty's GET and DELETE act on that other id, Ratecard's
 * on the path's, so a caller could not know which object a DELETE removes.
 */
function requireSamePathParameters(
  route: RestRoute,
  path: string,
  query: Record<string, string>,
  body: JsonObject | undefined,
): void {
  const captured = route.pattern.exec(path) ?? [];
  route.pathParams.forEach((param, index) => {
    const segment = captured[index + 1] ?? "";
    let pathId: string;
    try {
      pathId = decodeURIComponent(segment);
    } catch {
      pathId = segment;
    }
    for (const [where, value] of [
      ["query string", query[param]],
      ["body", body?.[param]],
    ] as const) {
      if (value !== undefined && value !== pathId) {
        throw new HttpFault(
          400,
          `Parameter "${param}" is given twice with different values: '${pathId}' in the path, ` +
            `'${typeof value === "string" ? value : JSON.stringify(value)}' in the ${where}`,
        );
      }
    }
  });
}

/** The value of path parameter `param` in `path` (decoded), as the procedure receives it. */
function pathParameter(route: RestRoute, path: string, param: string): string {
  const segment = route.pattern.exec(path)?.[route.pathParams.indexOf(param) + 1] ?? "";
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * CloudKitty reads a GET's arguments from a JSON body as well as from the query string, and
 * OpenStack's API test clients send list filters that way. The query string wins a name given in
 * both; names the route does not take are ignored, and so are nulls (an absent argument).
 */
function mergeGetBodyArguments(
  route: RestRoute,
  query: Record<string, string>,
  body: JsonObject,
): void {
  for (const [key, value] of Object.entries(body)) {
    if (!route.inputNames.has(key) || route.pathParams.includes(key)) continue;
    if (key in query || value === null) continue;
    query[key] = queryValue(key, value);
  }
}

/** A procedure's answer, or its failure as trpc-to-openapi's error body would carry it. */
type CallOutcome =
  | { ok: true; data: unknown }
  | {
      ok: false;
      status: number;
      message: string;
      issue: ValidationIssue | undefined;
      /** What to log when the failure is the server's own. */
      internal?: unknown;
    };

interface Dispatch {
  procedure: AnyProcedure;
  /** An object input's schema, coerced on first use as trpc-to-openapi does; null for void. */
  objectInput: { shape: Record<string, unknown> } | null;
  voidInput: boolean;
  arrayKeys: string[];
  coerced: boolean;
}

/**
 * What trpc-to-openapi's node handler does between routing and answering, without its per-request
 * fetch `Request`, AbortController, URL parses and caller proxy: the same input (query values that
 * are empty strings dropped, a lone value of an array argument wrapped, path parameters on top),
 * the same schema coercion, the procedure called as its caller would, and the same error status
 * and message (TRPC_ERROR_CODE_HTTP_STATUS; "Input validation failed" with zod's issues).
 */
function createDispatcher(router: AnyRouter) {
  const dispatches = new Map<string, Dispatch>();
  function dispatchOf(route: RestRoute): Dispatch {
    let dispatch = dispatches.get(route.procedurePath);
    if (!dispatch) {
      const procedure = (router._def.procedures as Record<string, AnyProcedure>)[
        route.procedurePath
      ]!;
      const { inputParser } = getInputOutputParsers(procedure as never);
      const unwrapped: unknown = unwrapZodType(inputParser, true);
      const objectInput = instanceofZodTypeObject(unwrapped as never)
        ? (unwrapped as { shape: Record<string, unknown> })
        : null;
      dispatch = {
        procedure,
        objectInput,
        voidInput: instanceofZodTypeLikeVoid(unwrapped as never),
        arrayKeys: Object.entries(objectInput?.shape ?? {})
          .filter(
            ([, shape]) =>
              shape instanceof ZodArray ||
              (instanceofZodTypeOptional(shape as never) &&
                (shape as { unwrap: () => unknown }).unwrap() instanceof ZodArray),
          )
          .map(([key]) => key),
        coerced: false,
      };
      dispatches.set(route.procedurePath, dispatch);
    }
    return dispatch;
  }

  return async function call(
    route: RestRoute,
    path: string,
    query: Record<string, string>,
    body: JsonObject | undefined,
    ctx: Context,
    /** The revision If-Match expects (PUT and DELETE), passed as the RPC input's `revision`. */
    expectedRevision: number | undefined,
  ): Promise<CallOutcome> {
    const dispatch = dispatchOf(route);
    let input: Record<string, unknown> | undefined;
    if (!dispatch.voidInput) {
      const pathInput = route.pattern.exec(path)?.slice(1) ?? [];
      if (route.inputSource === "body") {
        input = { ...(body ?? {}) };
        // CloudKitty master's `POST .../mappings?force=true`: a query argument beside the body.
        for (const key of route.queryParameters) if (query[key]) input[key] = query[key];
      } else {
        input = {};
        for (const [key, value] of Object.entries(query)) if (value) input[key] = value;
        for (const key of dispatch.arrayKeys)
          if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
      }
      route.pathParams.forEach((param, index) => (input![param] = pathInput[index]));
      if (expectedRevision !== undefined) input.revision = expectedRevision;
    }
    if (zodSupportsCoerce && dispatch.objectInput && !dispatch.coerced) {
      coerceSchema(dispatch.objectInput as never);
      dispatch.coerced = true;
    }
    try {
      const data: unknown = await callTRPCProcedure({
        router,
        path: route.procedurePath,
        getRawInput: () => Promise.resolve(input),
        ctx,
        type: dispatch.procedure._def.type,
        signal: undefined,
        batchIndex: 0,
      });
      return { ok: true, data };
    } catch (cause) {
      const error = getTRPCErrorFromUnknown(cause);
      const validation =
        error.code === "BAD_REQUEST" &&
        error.cause instanceof Error &&
        error.cause.name === "ZodError";
      return {
        ok: false,
        status: (TRPC_ERROR_CODE_HTTP_STATUS as Record<string, number>)[error.code] ?? 500,
        message: validation ? "Input validation failed" : error.message,
        issue: validation
          ? (error.cause as unknown as { issues: ValidationIssue[] }).issues[0]
          : undefined,
        ...(error.code === "INTERNAL_SERVER_ERROR" && { internal: error.cause ?? error }),
      };
    }
  };
}

export function createRestHandler(options: RestHandlerOptions) {
  const routes = collectRestRoutes(options.router);
  const call = createDispatcher(options.router);

  return async function handleRest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? "GET").toUpperCase();
    let input: unknown;
    let route: RestRoute | undefined;
    try {
      const url = URL.parse(req.url ?? "/", "http://localhost");
      if (!url) throw new HttpFault(400, "Malformed request target");
      let path = normalizePath(url.pathname);
      const query = readQuery(url);
      const body =
        method === "HEAD" || (method === "GET" && !announcesBody(req))
          ? undefined
          : await readJsonBody(
              req,
              options.bodyLimitBytes,
              method,
              url.pathname.startsWith("/v1/ratecard/ruleset"),
            );
      const resolved = resolveRoute(routes, method, path);
      if ("relocate" in resolved) {
        route = resolved.relocate;
        const id = takeId(route.idParam!, query, body, route.inputSource === "query");
        path = `${path}/${encodeURIComponent(id)}`;
      } else {
        route = resolved.route;
      }
      requireSamePathParameters(route, path, query, body);
      if (method === "GET" && body) {
        mergeGetBodyArguments(route, query, body);
      } else if (route.inputSource === "query" && body) {
        // DELETE with a JSON body: its keys are parameters, like the query string's.
        for (const [key, value] of Object.entries(body)) {
          if (key === route.idParam) continue;
          if (key in query)
            throw new HttpFault(
              400,
              `Parameter "${key}" is given in both the query string and the body`,
            );
          query[key] = queryValue(key, value);
        }
      }
      input = route.inputSource === "query" ? query : (body ?? {});
      // `revision` is the RPC's name for If-Match: a REST request naming it names an attribute
      // CloudKitty does not have. A rule-set document (Ratecard's own path) carries its own.
      if (
        Object.hasOwn(input as JsonObject, "revision") &&
        !route.procedurePath.startsWith("ruleset.")
      ) {
        const issue = { code: "unrecognized_keys", keys: ["revision"], path: [], message: "" };
        throw new HttpFault(
          400,
          describeValidationIssue(issue, input, route.inputSource, route.bodyName),
        );
      }
      const expectedRevision =
        (method === "PUT" || method === "DELETE") && route.idParam
          ? expectedRevisionOf(req.headers["if-match"], pathParameter(route, path, route.idParam))
          : undefined;
      const context = options.createContext(req);
      const answer = await call(route, path, query, body, context, expectedRevision);
      if (!answer.ok) {
        if (answer.internal !== undefined) options.onInternalError(answer.internal, req);
        // A 503 (the database unavailable, or conflicts that kept failing) is not a bug: its
        // message says so, and the client may try again in a second.
        if (answer.status === 503) {
          sendFault(res, 503, answer.message, { "Retry-After": "1" });
          return;
        }
        const message = answer.issue
          ? describeValidationIssue(answer.issue, input, route.inputSource, route.bodyName)
          : answer.status >= 500
            ? "Internal server error"
            : answer.message;
        sendFault(res, answer.status, message);
        return;
      }
      const outcome = context.rest;
      if (outcome.status === 204) {
        res.writeHead(204).end();
        return;
      }
      if (outcome.representation) {
        const { contentType, text, etag } = outcome.representation;
        if (matchesEntityTag(req.headers["if-none-match"], etag)) {
          res.writeHead(304, { ETag: etag }).end();
          return;
        }
        res.writeHead(outcome.status ?? 200, { "Content-Type": contentType, ETag: etag }).end(text);
        return;
      }
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      if (outcome.status === 201 && outcome.createdId) {
        headers.Location = `${options.origin(req)}${path}/${outcome.createdId}`;
      }
      const etag = takeRevision(answer.data);
      if (etag) headers.ETag = etag;
      // A decimal string's JSON text, unquoted, is the exact JSON number.
      const text = JSON.stringify(answer.data) as string | undefined;
      const payload = route.decimalAsJsonNumber ? (JSON.parse(text ?? '"0"') as string) : text;
      res.writeHead(outcome.status ?? 200, headers).end(payload);
    } catch (error) {
      // A fault found before the body was read (a repeated query argument, say) is still answered
      // after it, or closing the connection would reset it and cut the answer off. Not so for a
      // body over the limit: reading it all is what the limit prevents.
      if (!(error instanceof HttpFault && error.status === 413)) await discardBody(req);
      if (error instanceof HttpFault) {
        sendFault(res, error.status, error.message, error.headers);
        return;
      }
      options.onInternalError(error, req);
      sendFault(res, 500, "Internal server error");
    }
  };
}
