import {
  CloudKittyResponseError,
  CloudKittyUnreachableError,
  type RequestContext,
} from "./errors.js";
import { parseJsonExactly } from "./json.js";
import type { z } from "zod";

/** One HTTP exchange with CloudKitty or Keystone, body read in full. */
export interface HttpAnswer {
  status: number;
  requestId: string | undefined;
  /** The `Location` header, as sent (CloudKitty's PUT answers 302 with one: never followed). */
  location: string | undefined;
  headers: Headers;
  text: string;
  context: RequestContext;
}

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** Serialised with JSON.stringify: costs and levels must already be strings. */
  body?: unknown;
  timeoutMs: number;
}

const USER_AGENT = "ratecard-cloudkitty-client";

/**
 * Sends one request with Node's fetch, never following redirects, and with one deadline for the
 * whole exchange (connect, headers and body). Network failures and timeouts become
 * CloudKittyUnreachableError; every status is returned to the caller to judge.
 */
export async function exchange(request: HttpRequest): Promise<HttpAnswer> {
  const context: RequestContext = { method: request.method, url: request.url };
  const headers: Record<string, string> = {
    Accept: "application/json",
    "User-Agent": USER_AGENT,
    ...request.headers,
  };
  let body: string | undefined;
  if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers["Content-Type"] = "application/json";
  }
  const signal = AbortSignal.timeout(request.timeoutMs);
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers,
      body: body ?? null,
      redirect: "manual",
      signal,
    });
    const text = await response.text();
    const requestId = response.headers.get("x-openstack-request-id") ?? undefined;
    return {
      status: response.status,
      requestId,
      location: response.headers.get("location") ?? undefined,
      headers: response.headers,
      text,
      context: { ...context, requestId },
    };
  } catch (error) {
    throw new CloudKittyUnreachableError(context, signal.aborted, error);
  }
}

/** Parses an answer's body exactly (numbers kept as text) and validates it against `schema`. */
export function readAnswer<S extends z.ZodType>(answer: HttpAnswer, schema: S): z.output<S> {
  let json: unknown;
  try {
    json = parseJsonExactly(answer.text);
  } catch {
    const excerpt = answer.text.slice(0, 120);
    throw new CloudKittyResponseError(answer.context, answer.status, `not JSON: ${excerpt}`);
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
      .join("; ");
    throw new CloudKittyResponseError(answer.context, answer.status, issues);
  }
  return result.data;
}

/** The JSON body if there is one, else undefined (for error bodies of any shape). */
export function tryParseJson(text: string): unknown {
  try {
    return parseJsonExactly(text);
  } catch {
    return undefined;
  }
}
