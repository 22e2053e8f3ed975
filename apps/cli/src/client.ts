// Ratecard's REST API as the CLI uses it: a base URL and an optional token (X-Auth-Token: a local
// API token `rc_...`, or a Keystone token), answers as text or JSON, faults as CliError with the
// server's faultstring.

import http from "node:http";
import https from "node:https";

export class CliError extends Error {
  constructor(
    message: string,
    /** The HTTP status when the server answered with a fault. */
    readonly status?: number,
  ) {
    super(message);
    this.name = "CliError";
  }
}

export interface Connection {
  url: string;
  token: string | undefined;
}

export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** How long an ordinary request (a list, a probe, a rule-set export) may take. */
const TIMEOUT_MS = 2 * 60_000;

export interface RequestOptions {
  /**
   * An operation that answers only when done and may take minutes: a target's import, plan,
   * drift or apply (10,000 mappings take CloudKitty 17 4-5 minutes to write), a rule-set apply.
   * It waits without a deadline: fetch's dispatcher would give up waiting for the answer's
   * headers after 300 s while the server is still working, and the run would go on unseen.
   */
  long?: boolean;
}

export async function request(
  connection: Connection,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<Answer> {
  const url = new URL(path, connection.url.endsWith("/") ? connection.url : `${connection.url}/`);
  const headers: Record<string, string> = {
    Accept: "application/json",
    ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    ...(connection.token ? { "X-Auth-Token": connection.token } : {}),
  };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  let answer: Answer;
  try {
    answer = options.long
      ? await exchangeUntimed(url, method, headers, payload)
      : await exchangeTimed(url, method, headers, payload);
  } catch (error) {
    if (error instanceof CliError) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const code = (error as { code?: string }).code;
    const reason = cause?.code ?? cause?.message ?? code ?? (error as Error).message;
    throw new CliError(`Cannot reach Ratecard at ${connection.url}: ${reason}`);
  }
  if (answer.status >= 400) throw new CliError(faultOf(answer), answer.status);
  return answer;
}

async function exchangeTimed(
  url: URL,
  method: string,
  headers: Record<string, string>,
  payload: string | undefined,
): Promise<Answer> {
  const response = await fetch(url, {
    method,
    headers,
    body: payload,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    text: await response.text(),
  };
}

/**
 * node:http(s) rather than fetch: Node 20's fetch cannot be told to wait longer than its
 * dispatcher's 300 s headers timeout without the `undici` package, and node:http has no deadline
 * of its own. A dropped connection still ends the wait with an error.
 */
function exchangeUntimed(
  url: URL,
  method: string,
  headers: Record<string, string>,
  payload: string | undefined,
): Promise<Answer> {
  const send = url.protocol === "https:" ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const outgoing = send(
      url,
      {
        method,
        headers: {
          ...headers,
          ...(payload === undefined ? {} : { "Content-Length": Buffer.byteLength(payload) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        // The server may well have carried out the operation: say so rather than "cannot reach".
        const lost = () =>
          reject(
            new CliError(
              `The connection to Ratecard at ${url.origin} closed before the whole answer ` +
                "arrived; the operation may have been carried out: look (`ratecard targets runs`, `ratecard export`) before retrying.",
            ),
          );
        response.on("aborted", lost);
        response.on("error", lost);
        response.on("end", () => {
          if (!response.complete) return lost();
          resolve({
            status: response.statusCode ?? 0,
            contentType: response.headers["content-type"] ?? "",
            text: Buffer.concat(chunks).toString("utf8"),
          });
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

/** CloudKitty's fault shape ({faultcode, faultstring, debuginfo}): the faultstring says it all. */
function faultOf(answer: Answer): string {
  let fault: string | undefined;
  try {
    const parsed = JSON.parse(answer.text) as { faultstring?: unknown };
    if (typeof parsed.faultstring === "string") fault = parsed.faultstring;
  } catch {
    // not JSON: a proxy's page, shown as it is below
  }
  const hint =
    answer.status === 401
      ? " (set RATECARD_TOKEN or pass --token: an API token from the console's My API tokens)"
      : "";
  return `Ratecard answered ${answer.status}: ${fault ?? (answer.text.trim().slice(0, 300) || "(no body)")}${hint}`;
}

export async function requestJson<T>(
  connection: Connection,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<T> {
  const answer = await request(connection, method, path, body, options);
  try {
    return JSON.parse(answer.text) as T;
  } catch {
    throw new CliError(
      `Ratecard's answer to ${method} ${path} is not JSON: ${answer.text.slice(0, 200)}`,
    );
  }
}
