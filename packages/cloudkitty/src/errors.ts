/**
 * What can go wrong talking to CloudKitty, as distinct types so that callers (import, apply, drift,
 * probe) can tell "try again later" from "fix the credentials" from "CloudKitty said no". Messages
 * name the method, the URL and CloudKitty's request id; they never carry a credential or a token.
 */

export interface RequestContext {
  method: string;
  /** The URL asked for (no credentials are ever put in URLs). */
  url: string;
  /** CloudKitty's (or Keystone's) `x-openstack-request-id`, when it answered with one. */
  requestId?: string | undefined;
}

export abstract class CloudKittyClientError extends Error {
  readonly method: string;
  readonly url: string;
  readonly requestId: string | undefined;

  protected constructor(message: string, context: RequestContext, options?: ErrorOptions) {
    const suffix = context.requestId ? ` [${context.requestId}]` : "";
    super(`${context.method} ${context.url}: ${message}${suffix}`, options);
    this.name = new.target.name;
    this.method = context.method;
    this.url = context.url;
    this.requestId = context.requestId;
  }
}

/** No answer: connection refused, DNS, TLS, reset, or no answer within the timeout. */
export class CloudKittyUnreachableError extends CloudKittyClientError {
  readonly timedOut: boolean;
  constructor(context: RequestContext, timedOut: boolean, cause: unknown) {
    super(timedOut ? "no answer in time" : `unreachable (${describeCause(cause)})`, context, {
      cause,
    });
    this.timedOut = timedOut;
  }
}

/**
 * Keystone refused the credentials (401 on POST /v3/auth/tokens, or 404 for an application
 * credential it does not know), CloudKitty refused a fresh
 * token (401 again after one refetch), or the policy refused the caller (403).
 */
export class CloudKittyAuthError extends CloudKittyClientError {
  readonly status: number;
  readonly stage: "keystone" | "cloudkitty";
  constructor(
    context: RequestContext,
    status: number,
    stage: "keystone" | "cloudkitty",
    detail: string,
  ) {
    super(
      `${stage === "keystone" ? "Keystone" : "CloudKitty"} refused (${status}): ${detail}`,
      context,
    );
    this.status = status;
    this.stage = stage;
  }
}

/** Keystone gave a token, but its catalog has no usable `rating` endpoint. */
export class CloudKittyCatalogError extends CloudKittyClientError {
  constructor(context: RequestContext, detail: string) {
    super(detail, context);
  }
}

/** CloudKitty answered with its fault shape: `{faultcode, faultstring, debuginfo}`. */
export class CloudKittyFaultError extends CloudKittyClientError {
  readonly status: number;
  readonly faultcode: string;
  readonly faultstring: string;
  constructor(context: RequestContext, status: number, faultcode: string, faultstring: string) {
    super(`${status} ${faultcode}: ${faultstring}`, context);
    this.status = status;
    this.faultcode = faultcode;
    this.faultstring = faultstring;
  }
}

/** A status this operation does not expect, without CloudKitty's fault shape. */
export class CloudKittyUnexpectedStatusError extends CloudKittyClientError {
  readonly status: number;
  /** The first 300 characters of the body, for the run history. */
  readonly bodyExcerpt: string;
  constructor(context: RequestContext, status: number, body: string) {
    const excerpt = body.length > 300 ? `${body.slice(0, 300)}…` : body;
    super(`unexpected status ${status}${excerpt ? `: ${excerpt}` : ""}`, context);
    this.status = status;
    this.bodyExcerpt = excerpt;
  }
}

/** A success status whose body is not JSON or not the shape CloudKitty 17 documents. */
export class CloudKittyResponseError extends CloudKittyClientError {
  readonly status: number;
  constructor(context: RequestContext, status: number, detail: string) {
    super(`answer not understood (${status}): ${detail}`, context);
    this.status = status;
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    // fetch's TypeError("fetch failed") carries the socket error (ECONNREFUSED...) as its cause.
    const inner = cause.cause as { code?: unknown; message?: unknown } | undefined;
    const detail = typeof inner?.code === "string" ? inner.code : inner?.message;
    return typeof detail === "string" ? `${cause.message}: ${detail}` : cause.message;
  }
  return String(cause);
}
