// Ratecard's REST API as the CLI uses it: a base URL and an optional token (X-Auth-Token: a local
// API token `rc_...`, or a Keystone token), answers as text or JSON, faults as CliError with the
// server's faultstring.

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

/** How long one request may take: applying 10,000 rules is a few seconds, not minutes. */
const TIMEOUT_MS = 10 * 60_000;

export async function request(
  connection: Connection,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<Answer> {
  const url = new URL(path, connection.url.endsWith("/") ? connection.url : `${connection.url}/`);
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        Accept: "application/json",
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...(connection.token ? { "X-Auth-Token": connection.token } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new CliError(`Cannot reach Ratecard at ${connection.url}: ${reason}`);
  }
  const text = await response.text();
  const answer = {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    text,
  };
  if (response.status >= 400) throw new CliError(faultOf(answer), response.status);
  return answer;
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
): Promise<T> {
  const answer = await request(connection, method, path, body);
  try {
    return JSON.parse(answer.text) as T;
  } catch {
    throw new CliError(
      `Ratecard's answer to ${method} ${path} is not JSON: ${answer.text.slice(0, 200)}`,
    );
  }
}
