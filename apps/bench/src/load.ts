import autocannon from "autocannon";

export interface LoadRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Replaces every `[<id>]` in the body with a fresh id, so that each create is unique. */
  uniqueIds?: boolean;
}

export interface Measurement {
  requestsPerSecond: number;
  /** Milliseconds, from every answer's own timing (autocannon's histogram keeps whole ms only). */
  p50Ms: number;
  p99Ms: number;
  answers: number;
  /** Non-2xx answers, socket errors and timeouts: any of them makes the number meaningless. */
  failures: number;
  /** The server process's CPU time (user + system, from /proc) per answer, µs. */
  cpuMicrosPerAnswer?: number | null;
}

const REQUEST_TIMEOUT_S = 30;
// autocannon checks for the end of a run once per sample: the default 1 s would round every run
// up to whole seconds.
const SAMPLE_INTERVAL_MS = 50;

/** Drives `baseUrl` with `connections` keep-alive connections for `seconds`, nothing pipelined. */
export async function measure(
  baseUrl: string,
  request: LoadRequest,
  options: { connections: number; seconds: number },
): Promise<Measurement> {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl + request.path,
        method: request.method,
        headers: {
          ...request.headers,
          ...(request.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(request.body === undefined ? {} : { body: request.body }),
        idReplacement: request.uniqueIds ?? false,
        connections: options.connections,
        duration: options.seconds,
        timeout: REQUEST_TIMEOUT_S,
        sampleInt: SAMPLE_INTERVAL_MS,
      },
      (error: unknown, done: autocannon.Result) =>
        error
          ? reject(error instanceof Error ? error : new Error(JSON.stringify(error)))
          : resolve(done),
    );
    // autocannon emits (client, statusCode, bytes, milliseconds); its typings omit the client.
    instance.on("response", (...args: unknown[]) => {
      if (typeof args[1] === "number" && args[1] < 300) latencies.push(Number(args[3]));
    });
  });
  latencies.sort((a, b) => a - b);
  const ok = result["2xx"];
  return {
    requestsPerSecond: ok / result.duration,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    answers: ok,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}
