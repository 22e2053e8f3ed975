import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { Logger } from "pino";

/** CloudKitty's (oslo's) request id header: every answer carries one, every log line names it. */
export const REQUEST_ID_HEADER = "x-openstack-request-id";

const requestIds = new WeakMap<IncomingMessage, string>();

/**
 * The access log: one JSON line per request when its answer is done (`request completed`, or
 * `request aborted` when the client went away first), at warn for 4xx and error for 5xx. It costs
 * one listener and one pino call per request; it records the method, URL, status and time, never
 * headers or bodies, so no token or password can reach it.
 */
export function createAccessLog(
  logger: Logger,
  /** Also told of every answered request (the Prometheus metrics), from the same listener. */
  onAnswered?: (method: string, url: string, status: number, seconds: number) => void,
) {
  return function logRequest(req: IncomingMessage, res: ServerResponse): void {
    const id = `req-${randomUUID()}`;
    const started = performance.now();
    const method = req.method;
    const url = req.url;
    requestIds.set(req, id);
    res.setHeader(REQUEST_ID_HEADER, id);
    // "close" comes once per response: on() spares once()'s wrapper.
    res.on("close", () => {
      const status = res.statusCode;
      const elapsed = performance.now() - started;
      if (onAnswered && res.writableFinished)
        onAnswered(method ?? "GET", url ?? "/", status, elapsed / 1000);
      const level =
        status >= 500 ? "error" : status >= 400 || !res.writableFinished ? "warn" : "info";
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          req: { id, method, url },
          res: { status },
          responseTime: Math.round(elapsed),
        },
        res.writableFinished ? "request completed" : "request aborted",
      );
    });
  };
}

/** The id the access log gave this request (for error lines about it). */
export function requestIdOf(req: IncomingMessage): string | undefined {
  return requestIds.get(req);
}
