import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { Duplex } from "node:stream";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import type { Logger } from "pino";
import sirv from "sirv";
import {
  allowAll,
  appRouter,
  countRatingObjects,
  createContextInner,
  RuleSetCache,
} from "@ratecard/api";
import type { Database } from "@ratecard/db";
import type { Policy } from "@ratecard/policy";
import { createAccessLog, REQUEST_ID_HEADER, requestIdOf } from "./access-log.js";
import { createReadinessCheck } from "./operations/health.js";
import { createServerMetrics } from "./operations/prometheus.js";
import { createRouteLabels } from "./operations/route-labels.js";
import { targetSecretsOf } from "./target-key.js";
import type { Config } from "./config.js";
import { createAuthEdge } from "./edge/auth-edge.js";
import { createForwarded } from "./edge/forwarded.js";
import { assertEveryProcedureHasARule } from "./edge/rpc-rules.js";
import { createSessionRoutes } from "./edge/session-routes.js";
import type { IdentitySetup } from "./identity/strategies.js";
import { DOCS_ASSETS_PREFIX, docsPageHtml } from "./docs-page.js";
import { buildOpenApiDocument } from "./openapi.js";
import { announcesBody, drainBody } from "./http-body.js";
import { createRestHandler } from "./rest/compat.js";
import {
  cacheableRpcProcedures,
  dependsOnTheClock,
  isCacheableRestRead,
} from "./snapshot/cacheable.js";
import { createReadSnapshot, isPlainGet } from "./snapshot/read-snapshot.js";
import { createRequestVersions, createVersionCombiner } from "./snapshot/request-version.js";
import { collectRestRoutes, normalizePath } from "./rest/routes.js";
import { rawFaultResponse, sendFault, sendJson } from "./rest/faults.js";

const require = createRequire(import.meta.url);

export interface AppOptions {
  config: Config;
  database: Database;
  logger: Logger;
  version: string;
  identity: IdentitySetup;
  policy: Policy;
}

/** The HTTP server: REST (/v1), RPC (/trpc), the API reference (/docs) and the console (/). */
export function createApp({
  config,
  database,
  logger,
  version,
  identity,
  policy,
}: AppOptions): http.Server {
  assertEveryProcedureHasARule(
    appRouter._def.procedures as unknown as Record<
      string,
      { _def: { type: "query" | "mutation" } }
    >,
  );
  const forwarded = createForwarded(config.trustedProxies);
  const dataVersionOf = createRequestVersions(database.dataVersion);
  const edge = createAuthEdge({
    dataVersionOf,
    authenticator: identity.authenticator,
    policy,
    forwarded,
    wwwAuthenticate: identity.wwwAuthenticate,
    authFailuresPerMinute: config.authFailuresPerMinute,
  });
  const sessionRoutes = createSessionRoutes({
    edge,
    strategy: identity.authenticator.strategy,
    signIn: identity.signIn,
    forwarded,
    loginAttemptsPerMinute: config.loginAttemptsPerMinute,
  });
  const ruleSets = new RuleSetCache(database.dataVersion);
  const targetSecrets = targetSecretsOf(
    config.targetSecretKey,
    config.dataDir,
    config.cloudKittyRequestTimeoutMs,
  );
  // Answers are kept per database version and per stretch between two moments a rule starts or
  // ends: a preview or a list of rules in force changes when a start passes, with no write.
  const combineVersions = createVersionCombiner();
  const answerVersion = () => combineVersions(database.dataVersion(), ruleSets.clockEpoch());
  const answerVersionOf = (req: IncomingMessage) =>
    combineVersions(dataVersionOf(req), ruleSets.clockEpoch());
  const snapshot = createReadSnapshot({
    version: answerVersion,
    maxBytes: config.snapshotMaxBytes,
  });
  // REST requests are authorized before routing (guardRest); RPC calls one by one (rpcAccess).
  const createContext = (req: IncomingMessage) =>
    createContextInner({
      prisma: database.prisma,
      ruleSets,
      metrics: config.metrics,
      actor: edge.actorOf(req),
      requestId: requestIdOf(req) ?? null,
      ruleUpdateMode: config.ruleUpdateMode,
      targetSecrets,
      targetApplyLeaseMs: config.targetApplyLeaseMs,
      ...(req.url?.startsWith("/trpc/")
        ? { access: edge.rpcAccess(req), canManageAccounts: edge.mayManageAccounts(req) }
        : { access: allowAll }),
    });
  const readiness = createReadinessCheck(database, ruleSets);
  const routeLabel = createRouteLabels(
    collectRestRoutes(appRouter),
    new Set(Object.keys(appRouter._def.procedures)),
  );
  const serverMetrics = createServerMetrics({
    snapshot: snapshot.stats,
    ruleSets: () => ruleSets.stats(),
    ...(database.poolStats ? { pool: database.poolStats } : {}),
    ruleCounts: () => countRatingObjects(database.prisma),
  });
  const logRequest = createAccessLog(logger, (method, url, status, seconds) =>
    serverMetrics.record(method, routeLabel(url.split("?", 1)[0]!), status, seconds),
  );
  const onInternalError = (error: unknown, req: IncomingMessage) =>
    logger.error({ err: error, req: { id: requestIdOf(req) } }, "request failed");

  const rest = createRestHandler({
    router: appRouter,
    origin: forwarded.origin,
    createContext,
    bodyLimitBytes: config.bodyLimitBytes,
    onInternalError,
  });
  const rpc = createHTTPHandler({
    router: appRouter,
    createContext: ({ req }) => createContext(req),
    basePath: "/trpc/",
    maxBodySize: config.bodyLimitBytes,
    onError: ({ error, req }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") onInternalError(error.cause ?? error, req);
    },
  });
  const openApiDocument = buildOpenApiDocument(appRouter, version);
  // Only the files: requiring the package would load Swagger UI's whole bundle into the server.
  const docsAssets = sirv(path.dirname(require.resolve("swagger-ui-dist/package.json")), {
    dev: false,
  });
  // Assets are files or 404s; the console's own routes all get its page (index.html).
  const consoleFiles = fs.existsSync(config.consoleDir)
    ? {
        assets: sirv(config.consoleDir, { dev: false }),
        pages: sirv(config.consoleDir, { single: true, dev: false }),
        notFoundPage: fs.readFileSync(path.join(config.consoleDir, "index.html")),
      }
    : undefined;

  /** REST, once the path is known: the edge's checks, then a kept answer or the router. */
  async function restRequest(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    path: string,
    keepable: boolean,
  ): Promise<void> {
    if (!(await edge.guardRest(req, res, method, path))) return;
    return keepable ? keptOrRouted(req, res) : rest(req, res);
  }

  /** An admitted read the snapshot may answer: its kept answer, else the router's, then kept. */
  function keptOrRouted(req: IncomingMessage, res: ServerResponse): Promise<void> | undefined {
    if (snapshot.serve(req.url!, answerVersionOf(req), req, res)) return undefined;
    snapshot.record(req.url!, req, res);
    return rest(req, res);
  }

  /**
   * The path of a request the snapshot may answer, when it can be read straight off the request
   * target, else undefined (the request then takes the general way, with the same outcome). Such a
   * target is a plain GET of an origin-form target under /v1 whose path holds only letters, digits,
   * `/`, `_` and `-` (no dot segment, escape or `//`: URL parsing would leave it as it is), on SQLite
   * (PostgreSQL first catches up, asynchronously). What it skips: the URL parse, the checks for the
   * other handlers, the body drain (there is no body) and one promise.
   */
  function keptRestPath(req: IncomingMessage): string | undefined {
    if (database.catchUp || req.method !== "GET") return undefined;
    const target = req.url!;
    const query = target.indexOf("?");
    const pathname = query < 0 ? target : target.slice(0, query);
    if (!KEPT_REST_PATH.test(pathname) || announcesBody(req)) return undefined;
    const path = normalizePath(pathname);
    return isCacheableRestRead(path) && !dependsOnTheClock(target) ? path : undefined;
  }

  const failed = (error: unknown, req: IncomingMessage, res: ServerResponse) => {
    onInternalError(error, req);
    if (!res.headersSent) sendFault(res, 500, "Internal server error");
    else res.destroy();
  };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = URL.parse(req.url ?? "/", "http://localhost");
    if (!url) return sendFault(res, 400, "Malformed request target");
    const { pathname } = url;
    const notFound = () => sendFault(res, 404, `Resource not found: ${pathname}`);
    if (pathname === "/v1/openapi.json") return sendJson(res, 200, openApiDocument);
    if (pathname.startsWith("/v1/") || pathname === "/v1") {
      const method = (req.method ?? "GET").toUpperCase();
      const path = normalizePath(pathname);
      const kept = isPlainGet(req) && isCacheableRestRead(path) && !dependsOnTheClock(req.url!);
      return restRequest(req, res, method, path, kept);
    }
    if (pathname.startsWith("/v2/") || pathname === "/v2") {
      // CloudKitty's v2 API (reports, summaries, dataframes) is not Ratecard's: say so in the fault
      // shape, after the token check as CloudKitty does, never with the console's page.
      const method = (req.method ?? "GET").toUpperCase();
      if (!(await edge.guardRest(req, res, method, normalizePath(pathname)))) return;
      return sendFault(res, 404, `Ratecard serves CloudKitty's v1 rating API only: ${pathname}`);
    }
    if (pathname.startsWith("/trpc/")) {
      if (!(await edge.identify(req, res, true))) return;
      const procedures =
        isPlainGet(req) && !dependsOnTheClock(req.url!) ? cacheableRpcProcedures(pathname) : null;
      if (procedures && edge.rpcAllowsAll(req, procedures)) {
        if (snapshot.serve(req.url!, answerVersionOf(req), req, res)) return;
        snapshot.record(req.url!, req, res);
      }
      return rpc(req, res);
    }
    if (pathname.startsWith("/auth/")) return sessionRoutes(req, res, pathname);
    if (pathname === "/docs" || pathname === "/docs/") {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(docsPageHtml);
      return;
    }
    if (pathname.startsWith(DOCS_ASSETS_PREFIX)) {
      req.url = req.url!.slice(DOCS_ASSETS_PREFIX.length - 1);
      return docsAssets(req, res, notFound);
    }
    if (pathname === "/healthz") return sendJson(res, 200, { status: "ok" });
    if (pathname === "/readyz") {
      const state = await readiness();
      return sendJson(res, state.ready ? 200 : 503, {
        status: state.ready ? "ready" : "not ready",
        ...state,
      });
    }
    if (pathname === "/metrics") {
      res
        .writeHead(200, { "Content-Type": serverMetrics.contentType, "Cache-Control": "no-store" })
        .end(await serverMetrics.render());
      return;
    }
    if (!consoleFiles || !isConsolePath(req.url!, pathname)) {
      // A person who mistypes an address gets the console's own "Page not found" (still a 404);
      // programs, which do not ask for HTML first, get the fault.
      if (consoleFiles && wantsPage(req) && !NOT_A_CONSOLE_TARGET.test(req.url!)) {
        res
          .writeHead(404, {
            "Content-Type": "text/html; charset=utf-8",
            "Cache-Control": "no-cache",
          })
          .end(req.method === "HEAD" ? undefined : consoleFiles.notFoundPage);
        return;
      }
      return notFound();
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      return sendFault(res, 405, `The method ${req.method} is not allowed for this resource`, {
        Allow: "GET, HEAD",
      });
    }
    if (pathname.startsWith("/assets/")) return consoleFiles.assets(req, res, notFound);
    return consoleFiles.pages(req, res, notFound);
  }

  // Once shutdown has begun (server.close()), a keep-alive connection that finishes its in-flight
  // request would otherwise hold the process until the keep-alive timeout. One function for every
  // response ("finish" comes once: on() spares once()'s wrapper).
  const closeIdleWhenStopping = () => {
    if (!server.listening) server.closeIdleConnections();
  };
  const server = http.createServer((req, res) => {
    logRequest(req, res);
    res.on("finish", closeIdleWhenStopping);
    const keptPath = keptRestPath(req);
    if (keptPath !== undefined) {
      // Most reads are answered here, within the request's own turn: a verdict and an answer both
      // kept, no promise.
      try {
        const routed = edge.admitsRead(req, keptPath)
          ? keptOrRouted(req, res)
          : restRequest(req, res, "GET", keptPath, true);
        routed?.catch((error: unknown) => failed(error, req, res));
      } catch (error) {
        failed(error, req, res);
      }
      return;
    }
    const targetFault = originFormTarget(req);
    const answer = async () => {
      // Answering with a body still unread would close the connection on it, and the reset cuts
      // the answer off at the client.
      if (!handlerReadsBody(req)) await drainBody(req);
      if (res.destroyed || res.writableEnded) return;
      if (targetFault) return sendFault(res, 400, targetFault);
      if (database.catchUp && readsDatabase(req.url!)) {
        // Caches answer for a database version: on PostgreSQL, bring it up to every commit
        // acknowledged so far, by any instance, before anything is answered from them.
        try {
          await database.catchUp();
        } catch (error) {
          logger.warn({ err: error }, "database unreachable");
          return sendFault(res, 503, "The database is unavailable; retry later", {
            "Retry-After": "1",
          });
        }
      }
      // tRPC builds a fetch Request, which throws (a 500) on TRACE and TRACK; its clients use
      // GET and POST only.
      if (/^\/trpc(?:[/?#]|$)/.test(req.url!) && !["GET", "HEAD", "POST"].includes(req.method!)) {
        return sendFault(res, 405, `The method ${req.method} is not allowed for this resource`, {
          Allow: "GET, POST",
        });
      }
      return route(req, res);
    };
    answer().catch((error: unknown) => failed(error, req, res));
  });
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  // Node requires the headers timeout to exceed the keep-alive timeout, or an idle connection's
  // next request could be cut off by the headers timer instead.
  server.headersTimeout = config.keepAliveTimeoutMs + 1000;
  // Without these listeners Node drops a CONNECT's socket unanswered, and answers a request it
  // cannot parse with a bare status line: both get a fault instead.
  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    logger.warn({ method: req.method, url: req.url }, "CONNECT refused");
    closeWithFault(socket, 405, `The method ${req.method} is not allowed`, {
      Allow: "GET, HEAD, POST, PUT, DELETE",
    });
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, faultstring] = clientErrorFault(error.code);
    logger.warn({ code: error.code, status }, "malformed request refused");
    closeWithFault(socket, status, faultstring);
  });
  return server;
}

function closeWithFault(
  socket: Duplex,
  status: number,
  faultstring: string,
  headers: Record<string, string> = {},
): void {
  socket.end(
    rawFaultResponse(status, faultstring, {
      [REQUEST_ID_HEADER]: `req-${randomUUID()}`,
      ...headers,
    }),
  );
  // Whatever the client still sends is read and dropped, so closing does not reset the answer away.
  socket.resume();
  setTimeout(() => socket.destroy(), 2_000).unref();
}

function clientErrorFault(code: string | undefined): [number, string] {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "Request header fields are too large"];
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return [413, "Chunk extensions are too large"];
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "The request did not arrive in time"];
    case "HPE_INVALID_METHOD":
      return [400, "Malformed request: unknown method"];
    default:
      return [400, `Malformed request (${code ?? "unreadable"})`];
  }
}

/**
 * Routes read `req.url` as a path. A target such as `//host/x` parses as another authority, and an
 * absolute-form one (`http://host/x`) may name another host: only the origin form, or the absolute
 * form of this very host (rewritten to the origin form), is served.
 */
function originFormTarget(req: IncomingMessage): string | undefined {
  const target = req.url ?? "";
  if (target.startsWith("/") && !target.startsWith("//")) return undefined;
  if (/^https?:\/\//i.test(target)) {
    const url = URL.parse(target);
    if (url && url.host === req.headers.host?.toLowerCase()) {
      req.url = `${url.pathname}${url.search}`;
      return undefined;
    }
    return "Malformed request target: it names another host";
  }
  return "Malformed request target: expected a path that starts with a single /";
}

/** A /v1 path that URL parsing leaves exactly as it is (see keptRestPath). */
const KEPT_REST_PATH = /^\/v1(?:\/[\w-]+)+\/?$/;

/** Requests whose answers come from the database (or caches of it). */
function readsDatabase(target: string): boolean {
  return /^\/(?:v1|trpc|auth)(?:[/?#]|$)/.test(target);
}

/** REST reads the body of every method but HEAD; the other handlers read bodies only on writes. */
function handlerReadsBody(req: IncomingMessage): boolean {
  const target = req.url ?? "";
  const method = req.method ?? "GET";
  if (/^\/v1\/openapi\.json(?:[?#]|$)/.test(target)) return false;
  if (/^\/v1(?:[/?#]|$)/.test(target)) return method !== "HEAD";
  if (/^\/(?:trpc|auth)\//.test(target)) return !["GET", "HEAD", "DELETE"].includes(method);
  return false;
}

/** A browser navigating: a GET or HEAD whose Accept puts HTML first. */
function wantsPage(req: IncomingMessage): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  return /^\s*text\/html/i.test(req.headers.accept ?? "");
}

/** The first path segments of the console's routes (apps/web/src/router.tsx). */
const CONSOLE_SECTIONS = new Set([
  "hashmap",
  "pyscripts",
  "preview",
  "modules",
  "admin",
  "account",
  "activity",
  "targets",
]);
/** `//`, or a `.` / `..` segment, plain or percent-encoded: never a console address. */
const NOT_A_CONSOLE_TARGET = /\/\/|(?:^|\/)(?:\.|%2e){1,2}(?:[/?#]|$)/i;

/**
 * Whether a path is the console's: its page, its assets, or one of its routes. Anything else
 * (an API path with a typo, `//v1//rating`, a probe for `/.env`) is a 404 fault, not the page.
 */
function isConsolePath(target: string, pathname: string): boolean {
  if (NOT_A_CONSOLE_TARGET.test(target)) return false;
  if (pathname === "/" || pathname === "/index.html" || pathname.startsWith("/assets/"))
    return true;
  return CONSOLE_SECTIONS.has(pathname.split("/")[1] ?? "");
}
