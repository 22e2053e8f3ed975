import fs from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { randomUUID } from "node:crypto";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { pinoHttp } from "pino-http";
import type { Logger } from "pino";
import sirv from "sirv";
import { appRouter, createContextInner } from "@ratecard/api";
import type { Database } from "@ratecard/db";
import type { Config } from "./config.js";
import { DOCS_ASSETS_PREFIX, docsPageHtml } from "./docs-page.js";
import { buildOpenApiDocument } from "./openapi.js";
import { createRestHandler } from "./rest/compat.js";
import { sendFault, sendJson } from "./rest/faults.js";

const require = createRequire(import.meta.url);
const REQUEST_ID_HEADER = "x-openstack-request-id";

export interface AppOptions {
  config: Config;
  database: Database;
  logger: Logger;
  version: string;
}

/** The HTTP server: REST (/v1), RPC (/trpc), the API reference (/docs) and the console (/). */
export function createApp({ config, database, logger, version }: AppOptions): http.Server {
  const createContext = () =>
    createContextInner({ prisma: database.prisma, metrics: config.metrics });
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
    createContext,
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
    const { pathname } = new URL(req.url ?? "/", "http://localhost");
    const notFound = () => sendFault(res, 404, `Resource not found: ${pathname}`);
    if (pathname === "/v1/openapi.json") return sendJson(res, 200, openApiDocument);
    if (pathname.startsWith("/v1/") || pathname === "/v1") return rest(req, res);
    if (pathname.startsWith("/trpc/")) return rpc(req, res);
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
