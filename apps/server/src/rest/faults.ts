import { STATUS_CODES, type ServerResponse } from "node:http";

/** CloudKitty's error body (WSME's fault): Client for 4xx, Server for 5xx. */
export interface Fault {
  faultcode: "Client" | "Server";
  faultstring: string;
  debuginfo: null;
}

export class HttpFault extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function faultBody(status: number, faultstring: string): Fault {
  return { faultcode: status >= 500 ? "Server" : "Client", faultstring, debuginfo: null };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(payload),
  });
  res.end(payload);
}

export function sendFault(
  res: ServerResponse,
  status: number,
  faultstring: string,
  headers?: Record<string, string>,
): void {
  sendJson(res, status, faultBody(status, faultstring), headers);
}

/** The subset of a zod issue the REST layer reads (as serialized by trpc-to-openapi). */
export interface ValidationIssue {
  code: string;
  path: (string | number)[];
  message: string;
  keys?: string[];
}

export type InputSource = "body" | "query";

/** Python's rendering of a value in WSME messages: None for absent, the text otherwise. */
function pythonRepr(value: unknown): string {
  if (value === undefined || value === null) return "None";
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "True" : "False";
  return JSON.stringify(value);
}

function valueAt(input: unknown, path: (string | number)[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/**
 * Words a validation failure as CloudKitty does, so messages read (and are searched) the same:
 * "Invalid input for field/attribute cost. Value: 'abc'. <why>", "Unknown attribute for argument
 * service_data: foo", "Missing argument: "service_id"".
 */
export function describeValidationIssue(
  issue: ValidationIssue,
  input: unknown,
  source: InputSource,
  bodyName: string,
): string {
  const attribute = issue.path.join(".");
  if (issue.code === "unrecognized_keys") {
    const keys = (issue.keys ?? []).join(", ");
    return source === "body"
      ? `Unknown attribute for argument ${bodyName}: ${keys}`
      : `Unknown argument: "${keys}"`;
  }
  const value = valueAt(input, issue.path);
  if (value === undefined) {
    return source === "body"
      ? `Invalid input for field/attribute ${attribute}. Value: 'None'. Mandatory field missing.`
      : `Missing argument: "${attribute}"`;
  }
  return `Invalid input for field/attribute ${attribute}. Value: '${pythonRepr(value)}'. ${issue.message}`;
}

/**
 * A whole HTTP/1.1 fault answer as bytes, for the sockets Node hands over without a response object
 * (CONNECT, requests it could not parse). It closes the connection: nothing after it can be read.
 */
export function rawFaultResponse(
  status: number,
  faultstring: string,
  headers: Record<string, string> = {},
): string {
  const payload = JSON.stringify(faultBody(status, faultstring));
  const lines = Object.entries({
    ...headers,
    "Content-Type": "application/json",
    "Content-Length": String(Buffer.byteLength(payload)),
    Connection: "close",
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\n${lines.join("")}\r\n${payload}`;
}
