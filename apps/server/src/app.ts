import fs from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { randomUUID } from "node:crypto";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { pinoHttp } from "pino-http";
import type { Logger } from "pino";
import sirv from "sirv";
import { allowAll, appRouter, createContextInner, RuleSetCache } from "@ratecard/api";
import type { Database } from "@ratecard/db";
import type { Policy } from "@ratecard/policy";
import type { Config } from "./config.js";
import { createAuthEdge } from "./edge/auth-edge.js";
import { createForwarded } from "./edge/forwarded.js";
import { assertEveryProcedureHasARule } from "./edge/rpc-rules.js";
import { createSessionRoutes } from "./edge/session-routes.js";
import type { IdentitySetup } from "./identity/strategies.js";
import { DOCS_ASSETS_PREFIX, docsPageHtml } from "./docs-page.js";
import { buildOpenApiDocument } from "./openapi.js";
import { createRestHandler } from "./rest/compat.js";
import { normalizePath } from "./rest/routes.js";
import { sendFault, sendJson } from "./rest/faults.js";

const require = createRequire(import.meta.url);
const REQUEST_ID_HEADER = "x-openstack-request-id";

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
  const edge = createAuthEdge({
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
  const ruleSets = new RuleSetCache();
  // REST requests are authorized before routing (guardRest); RPC calls one by one (rpcAccess).
  const createContext = (req: IncomingMessage) =>
    createContextInner({
      prisma: database.prisma,
      ruleSets,
      metrics: config.metrics,
      actor: edge.actorOf(req),
      canManageAccounts: edge.mayManageAccounts(req),
      access: req.url?.startsWith("/trpc/") ? edge.rpcAccess(req) : allowAll,
    });
  const logRequest = pinoHttp({
    logger,
    genReqId: (_req, res) => {
      const id = `req-${randomUUID()}`;
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    customLogLevel: (_req, res, error) =>
      error || res.statusCode >= 500 ? "error" : res.statusCode >= 400 ? "warn" : "info",
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url,
      }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
  });
  const onInternalError = (error: unknown, req: IncomingMessage) =>
    (req as IncomingMessage & { log?: Logger }).log?.error({ err: error }, "request failed");

  const rest = createRestHandler({
    router: appRouter,
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
  const swaggerUi = require("swagger-ui-dist") as { getAbsoluteFSPath(): string };
  const docsAssets = sirv(swaggerUi.getAbsoluteFSPath(), { dev: false });
  const consoleFiles = fs.existsSync(config.consoleDir)
    ? sirv(config.consoleDir, { single: true, dev: false })
    : undefined;

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = URL.parse(req.url ?? "/", "http://localhost");
    if (!url) return sendFault(res, 400, "Malformed request target");
    const { pathname } = url;
    const notFound = () => sendFault(res, 404, `Resource not found: ${pathname}`);
    if (pathname === "/v1/openapi.json") return sendJson(res, 200, openApiDocument);
    if (pathname.startsWith("/v1/") || pathname === "/v1") {
      const method = (req.method ?? "GET").toUpperCase();
      if (await edge.guardRest(req, res, method, normalizePath(pathname))) return rest(req, res);
      return;
    }
    if (pathname.startsWith("/trpc/")) {
      if (await edge.identify(req, res, true)) return rpc(req, res);
      return;
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
    if (consoleFiles) return consoleFiles(req, res, notFound);
    notFound();
  }

  const server = http.createServer((req, res) => {
    logRequest(req, res);
    // Once shutdown has begun (server.close()), a keep-alive connection that finishes its in-flight
    // request would otherwise hold the process until the keep-alive timeout.
    res.once("finish", () => {
      if (!server.listening) server.closeIdleConnections();
    });
    route(req, res).catch((error: unknown) => {
      onInternalError(error, req);
      if (!res.headersSent) sendFault(res, 500, "Internal server error");
      else res.destroy();
    });
  });
  return server;
}
