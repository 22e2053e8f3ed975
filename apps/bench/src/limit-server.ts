/**
 * The "physical limit" servers, run in a child process of their own (see limits.ts): a bare
 * node:http server that answers every request with one captured answer, byte for byte, and
 * optionally first stores the request with one prepared SQLite INSERT (the durable write limit).
 */
import { hash, randomUUID } from "node:crypto";
import http from "node:http";
import Database from "better-sqlite3";
import { pino } from "pino";
import { Counter, Histogram, Registry } from "prom-client";

export interface ReplayedAnswer {
  status: number;
  rawHeaders: string[];
  bodyBase64: string;
}

export interface LimitServerConfig {
  answer: ReplayedAnswer;
  /** When set, every request body (a mapping) is inserted into this database first. */
  durableInsert?: { databasePath: string; journalMode: string; synchronous: string };
  /**
   * When set, every request first does what any Ratecard answer must do, with the libraries
   * Ratecard uses: a fresh request id header, one access line (pino, to `logPath`), one metrics
   * observation (prom-client), the token's SHA-256 digest, and one `PRAGMA data_version` on
   * Ratecard's database file (the per-request freshness check). The floor under Ratecard's cost.
   */
  essentials?: { databasePath: string; logPath: string };
}

// Node writes these itself, as it did for Ratecard: copying them would send them twice.
const WRITTEN_BY_NODE = new Set(["connection", "keep-alive", "date", "transfer-encoding"]);

function replayer(
  answer: ReplayedAnswer,
  /** The request id is made per request (essentials): the captured one is left out. */
  freshRequestId = false,
): (res: http.ServerResponse) => void {
  const body = Buffer.from(answer.bodyBase64, "base64");
  const headers: string[] = [];
  let chunked = false;
  for (let i = 0; i < answer.rawHeaders.length; i += 2) {
    const name = answer.rawHeaders[i] ?? "";
    const value = answer.rawHeaders[i + 1] ?? "";
    if (name.toLowerCase() === "transfer-encoding") chunked = true;
    if (freshRequestId && name.toLowerCase() === "x-openstack-request-id") continue;
    if (!WRITTEN_BY_NODE.has(name.toLowerCase())) headers.push(name, value);
  }
  return (res) => {
    res.writeHead(answer.status, headers);
    // Same framing as the original: chunked stays chunked, Content-Length stays as it was.
    if (chunked) {
      res.write(body);
      res.end();
    } else res.end(body);
  };
}

function openInsert(config: NonNullable<LimitServerConfig["durableInsert"]>) {
  const db = new Database(config.databasePath);
  db.pragma(`journal_mode = ${config.journalMode}`);
  db.pragma(`synchronous = ${config.synchronous}`);
  db.exec(`CREATE TABLE IF NOT EXISTS mapping (
    id TEXT PRIMARY KEY NOT NULL,
    field_id TEXT NOT NULL,
    value TEXT NOT NULL,
    type TEXT NOT NULL,
    cost TEXT NOT NULL,
    UNIQUE (field_id, value)
  )`);
  const insert = db.prepare(
    "INSERT INTO mapping (id, field_id, value, type, cost) VALUES (?, ?, ?, ?, ?)",
  );
  return (body: string) => {
    const mapping = JSON.parse(body) as Record<string, string>;
    insert.run(
      randomUUID(),
      mapping.field_id ?? "",
      mapping.value ?? "",
      mapping.type ?? "flat",
      mapping.cost ?? "0",
    );
  };
}

function openEssentials(config: NonNullable<LimitServerConfig["essentials"]>) {
  const watcher = new Database(config.databasePath, { readonly: true, fileMustExist: true });
  const dataVersion = watcher.prepare("PRAGMA data_version").pluck();
  const logger = pino(pino.destination({ dest: config.logPath, minLength: 8 * 1024 }));
  const registry = new Registry();
  const labelNames = ["method", "route", "status"];
  const requests = new Counter({ name: "requests", help: "-", labelNames, registers: [registry] });
  const duration = new Histogram({ name: "seconds", help: "-", labelNames, registers: [registry] });
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const id = `req-${randomUUID()}`;
    const started = performance.now();
    res.setHeader("x-openstack-request-id", id);
    res.on("close", () => {
      const elapsed = performance.now() - started;
      const labels = { method: req.method, route: "/v1/(route)", status: res.statusCode };
      requests.inc(labels);
      duration.observe(labels, elapsed / 1000);
      logger.info(
        {
          req: { id, method: req.method, url: req.url },
          res: { status: res.statusCode },
          responseTime: Math.round(elapsed),
        },
        "request completed",
      );
    });
    hash("sha256", String(req.headers["x-auth-token"] ?? ""), "hex");
    dataVersion.get();
  };
}

function serve(config: LimitServerConfig): http.Server {
  const answer = replayer(config.answer, config.essentials !== undefined);
  const store = config.durableInsert ? openInsert(config.durableInsert) : undefined;
  const essentials = config.essentials ? openEssentials(config.essentials) : undefined;
  return http.createServer((req, res) => {
    essentials?.(req, res);
    // Read the whole request as Ratecard must, so that both servers do the same I/O.
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (store) {
        try {
          store(Buffer.concat(chunks).toString());
        } catch (error) {
          res.writeHead(500).end(String(error));
          return;
        }
      }
      answer(res);
    });
  });
}

process.once("message", (config: LimitServerConfig) => {
  const server = serve(config);
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    process.send?.({ port: typeof address === "object" && address ? address.port : 0 });
  });
});
// The benchmark holds the IPC channel open for as long as it needs this server.
process.once("disconnect", () => process.exit(0));
