import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { symbols, type Logger } from "pino";

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
  baseLogger: Logger,
  /** Also told of every answered request (the Prometheus metrics), from the same listener. */
  onAnswered?: (method: string, url: string, status: number, seconds: number) => void,
) {
  const logger = batched(baseLogger);
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

const FLUSH_MS = 10;
const FLUSH_BYTES = 32 * 1024;

interface LineStream {
  write(line: string): unknown;
  flushSync?: () => void;
  [symbols.needsMetadataGsym]?: boolean;
}

/**
 * A logger that writes exactly the lines `logger` would (it is its child, with no bindings of its
 * own), but hands them to the logger's stream in batches: at most every FLUSH_MS, or as soon as
 * FLUSH_BYTES are waiting. A busy server answers one request per event-loop turn more often than
 * not, and a write per line cost more than the rest of a kept answer together (a system call, and
 * with pino's asynchronous destination a hand-off to a worker thread). Lines keep their order and
 * reach the stream at most FLUSH_MS after their request ended; lines still held when the process
 * exits are written then, synchronously (a SIGKILL loses at most FLUSH_MS of access lines).
 */
function batched(logger: Logger): Logger {
  const target = (logger as unknown as Record<symbol, LineStream | undefined>)[symbols.streamSym];
  // A multistream reads the metadata of the line being written: leave those as they are.
  if (!target || typeof target.write !== "function" || target[symbols.needsMetadataGsym])
    return logger;
  let pending = "";
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending === "") return;
    const lines = pending;
    pending = "";
    target.write(lines);
  };
  process.once("exit", () => {
    flush();
    try {
      target.flushSync?.();
    } catch {
      // Nothing more can be done for a stream that cannot write synchronously at exit.
    }
  });
  const batch: LineStream = {
    write(line: string) {
      pending += line;
      if (pending.length >= FLUSH_BYTES) flush();
      // Unreferenced: held lines never keep the process alive; "exit" writes them.
      else timer ??= setTimeout(flush, FLUSH_MS).unref();
      return true;
    },
  };
  const child = logger.child({});
  (child as unknown as Record<symbol, LineStream>)[symbols.streamSym] = batch;
  return child;
}

/** The id the access log gave this request (for error lines about it). */
export function requestIdOf(req: IncomingMessage): string | undefined {
  return requestIds.get(req);
}
