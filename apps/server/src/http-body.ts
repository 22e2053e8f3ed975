import type { IncomingMessage } from "node:http";

// An answer sent before its request body was read gets cut off when the socket is closed under
// the unread bytes: every early answer (faults, refusals) drains the body first.

/** Whether the request says it has a body: decided from its headers, before touching the stream. */
export function announcesBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** Reads and throws away the rest of a request body, so the answer is not cut off by a reset. */
export function discardBody(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (req.readableEnded || req.destroyed) return resolve();
    req.once("end", resolve).once("close", resolve).once("error", resolve);
    req.resume();
  });
}

/** Reads the body to its end when the request announced one: call before any early answer. */
export async function drainBody(req: IncomingMessage): Promise<void> {
  if (announcesBody(req)) await discardBody(req);
}
