import http from "node:http";
import type { AddressInfo } from "node:net";

// A proxy in front of a real CloudKitty that fails one write on purpose (issue 14's fault
// injection): `drop-answer` forwards the write, lets CloudKitty carry it out, and then closes the
// client's connection without a word (the write happened; the caller cannot know); `unavailable`
// answers 503 without forwarding (the write did not happen). Reads always pass through.

/** `times`: how many writes in a row fail from the `nth` on (default 1: a retry goes through). */
export type Fault =
  | { kind: "drop-answer"; nth: number; method?: string; times?: number }
  | { kind: "unavailable"; nth: number; method?: string; times?: number };

export interface ProxyEvent {
  method: string;
  path: string;
  /** CloudKitty's status, or what the proxy did instead. */
  outcome: number | "dropped" | "503";
}

export interface FaultyProxy {
  url: string;
  /** Fails the `nth` write (1-based, counted from now; of `method` when given) and `times - 1` more. */
  arm(fault: Fault): void;
  disarm(): void;
  /** Whether the armed fault has fired. */
  fired(): boolean;
  events: ProxyEvent[];
  close(): Promise<void>;
}

export async function startFaultyProxy(upstream: string): Promise<FaultyProxy> {
  const target = new URL(upstream);
  let fault: Fault | null = null;
  let seen = 0;
  let hasFired = false;
  const events: ProxyEvent[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const method = req.method ?? "GET";
      const path = req.url ?? "/";
      let fire: Fault | null = null;
      if (fault && method !== "GET" && (!fault.method || fault.method === method)) {
        seen++;
        const last = fault.nth + (fault.times ?? 1) - 1;
        if (seen >= fault.nth && seen <= last) {
          fire = fault;
          hasFired = true;
          if (seen === last) fault = null;
        }
      }
      if (fire?.kind === "unavailable") {
        events.push({ method, path, outcome: "503" });
        res.writeHead(503, { "Content-Type": "text/html", Connection: "close" });
        res.end("<html><body><h1>503 Service Unavailable</h1></body></html>");
        return;
      }
      const headers = { ...req.headers, host: target.host };
      const forward = http.request(
        { host: target.hostname, port: target.port, method, path, headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => body.push(chunk));
          answer.on("end", () => {
            if (fire?.kind === "drop-answer") {
              // CloudKitty has done it; the caller hears nothing but a closed connection.
              events.push({ method, path, outcome: "dropped" });
              req.socket.destroy();
              return;
            }
            events.push({ method, path, outcome: answer.statusCode ?? 0 });
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      forward.on("error", () => {
        res.writeHead(502);
        res.end();
      });
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arm(next) {
      fault = next;
      seen = 0;
      hasFired = false;
    },
    disarm() {
      fault = null;
    },
    fired: () => hasFired,
    events,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
