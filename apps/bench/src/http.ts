import http from "node:http";

/** One answer with its exact bytes: what a replay server sends back unchanged. */
export interface CapturedAnswer {
  status: number;
  /** As received, in order: [name, value, name, value, ...]. */
  rawHeaders: string[];
  body: Buffer;
}

export interface HttpRequest {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

// Seeding makes thousands of requests: reuse connections as a real client would, but drop idle
// ones well before the server's 5 s keep-alive timeout, or a request may go out on a socket the
// server is closing ("socket hang up").
const agent = new http.Agent({ keepAlive: true, maxSockets: 32, timeout: 1_000 });

const REQUEST_TIMEOUT_MS = 60_000;

export function request(baseUrl: string, options: HttpRequest): Promise<CapturedAnswer> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const req = http.request(
      new URL(options.path, baseUrl),
      {
        method: options.method,
        agent,
        headers: {
          ...options.headers,
          ...(body ? { "content-type": "application/json", "content-length": body.length } : {}),
        },
        timeout: REQUEST_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${options.method} ${options.path} timed out`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** The answer's JSON body, or an error naming the request when the status is not `expected`. */
export async function requestJson<T>(
  baseUrl: string,
  options: HttpRequest,
  expected: number,
): Promise<T> {
  const answer = await request(baseUrl, options);
  const text = answer.body.toString();
  if (answer.status !== expected)
    throw new Error(
      `${options.method} ${options.path}: expected ${expected}, got ${answer.status}: ${text.slice(0, 500)}`,
    );
  return JSON.parse(text) as T;
}

export function header(answer: CapturedAnswer, name: string): string | undefined {
  for (let i = 0; i < answer.rawHeaders.length; i += 2)
    if (answer.rawHeaders[i]?.toLowerCase() === name) return answer.rawHeaders[i + 1];
  return undefined;
}

export function closeConnections(): void {
  agent.destroy();
}
