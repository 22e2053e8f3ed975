import type { ServerResponse } from "node:http";
import { sendFault, sendJson } from "../rest/faults.js";

// The edge's refusals, in the shapes CloudKitty's clients parse: keystonemiddleware's 401 body, and
// CloudKitty's fault for everything else.

export const UNAUTHENTICATED_MESSAGE = "The request you have made requires authentication.";

export function sendUnauthorized(res: ServerResponse, wwwAuthenticate: string): void {
  sendJson(
    res,
    401,
    { error: { code: 401, title: "Unauthorized", message: UNAUTHENTICATED_MESSAGE } },
    { "WWW-Authenticate": wwwAuthenticate },
  );
}

export function policyRefusal(rule: string): string {
  return `Policy doesn't allow ${rule} to be performed.`;
}

export function sendForbidden(res: ServerResponse, rule: string): void {
  sendFault(res, 403, policyRefusal(rule));
}

export function sendIdentityUnavailable(res: ServerResponse): void {
  sendFault(res, 503, "The identity service cannot be reached: try again shortly.", {
    "Retry-After": "5",
  });
}

export function sendTooManyAttempts(res: ServerResponse, retryAfterMs: number): void {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  sendFault(
    res,
    429,
    `Too many failed authentication attempts from this address: try again in ${seconds} s.`,
    { "Retry-After": String(seconds) },
  );
}
