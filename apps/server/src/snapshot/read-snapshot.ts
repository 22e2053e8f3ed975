import { createHash } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { LRUCache } from "lru-cache";
import { announcesBody } from "../http-body.js";

// The read path: answers of GET requests kept as bytes, with their ETag, for as long as the database
// has not changed. Sits between the edge (which has authenticated and authorized the request) and
// the router, which computes an answer once per database version. Any commit, by this process or
// another one on the same database, changes the version, so no answer outlives the data it shows.

interface Answer {
  version: number;
  /** The kept headers with this answer's ETag and Content-Length, built once. */
  headers: OutgoingHttpHeaders;
  body: Buffer;
  etag: string;
}

/** Headers that belong to one exchange, never to a kept answer. */
const PER_REQUEST_HEADERS = new Set([
  "x-openstack-request-id",
  "set-cookie",
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "etag",
]);

export interface ReadSnapshotOptions {
  /** Changes whenever the database does (Database.dataVersion). */
  version: () => number;
  /** Bytes of answers kept at most; the least recently used go first. */
  maxBytes: number;
}

function entityTag(body: Buffer): string {
  return `"${createHash("sha1").update(body).digest("base64url")}"`;
}

function routerEntityTag(headers: OutgoingHttpHeaders): string | undefined {
  for (const [name, value] of Object.entries(headers))
    if (name.toLowerCase() === "etag" && typeof value === "string") return value;
  return undefined;
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

/** A GET that carries no body: its answer depends only on its URL and the data. */
export function isPlainGet(req: IncomingMessage): boolean {
  return req.method === "GET" && !announcesBody(req);
}

export function createReadSnapshot(options: ReadSnapshotOptions) {
  const answers = new LRUCache<string, Answer>({
    // READ_CACHE_MB=0 keeps nothing: every read goes to the router.
    maxSize: Math.max(1, options.maxBytes),
    // The body, plus what each kept answer costs besides (its key, headers object and ETag, the
    // LRU's node: about a kilobyte), so that READ_CACHE_MB bounds small answers honestly too.
    sizeCalculation: (answer) => answer.body.length + 1024,
  });

  let hits = 0;
  let misses = 0;

  function send(req: IncomingMessage, res: ServerResponse, answer: Answer): void {
    if (matches(req.headers["if-none-match"], answer.etag)) {
      res.writeHead(304, { ETag: answer.etag }).end();
      return;
    }
    res.writeHead(200, answer.headers).end(answer.body);
  }

  return {
    /** Answers from the snapshot when it holds `key` at `version`, the version the request sees. */
    serve(key: string, version: number, req: IncomingMessage, res: ServerResponse): boolean {
      if (options.maxBytes === 0) return false;
      const answer = answers.get(key);
      if (answer?.version !== version) {
        if (answer) answers.delete(key);
        misses++;
        return false;
      }
      hits++;
      send(req, res, answer);
      return true;
    },

    /**
     * Keeps the 200 answer the router is about to write for `key`, if the data did not change while
     * it was computed, and sends it with its ETag. Call before handing the request on.
     */
    record(key: string, req: IncomingMessage, res: ServerResponse): void {
      if (options.maxBytes === 0) return;
      const version = options.version();
      const chunks: Buffer[] = [];
      const toBuffer = (chunk: unknown, encoding?: unknown) =>
        Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(
              chunk as string,
              typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8",
            );
      let head: { status: number; headers: OutgoingHttpHeaders } | undefined;
      // The stand-ins below are own properties of this response: deleting them brings back
      // http.ServerResponse's methods.
      const restore = () => {
        for (const method of ["writeHead", "write", "end"]) Reflect.deleteProperty(res, method);
      };
      res.writeHead = (status: number, ...rest: unknown[]) => {
        const headers = rest.find((arg) => typeof arg === "object" && arg !== null);
        head = { status, headers: (headers ?? {}) as OutgoingHttpHeaders };
        return res;
      };
      res.write = ((chunk: unknown, encoding?: unknown) => {
        chunks.push(toBuffer(chunk, encoding));
        return true;
      }) as typeof res.write;
      res.end = ((chunk?: unknown, encoding?: unknown) => {
        restore();
        if (chunk !== undefined && typeof chunk !== "function")
          chunks.push(toBuffer(chunk, encoding));
        const body = Buffer.concat(chunks);
        const status = head?.status ?? res.statusCode;
        const headers: OutgoingHttpHeaders = { ...res.getHeaders(), ...head?.headers };
        if (status === 200 && version === options.version()) {
          const kept: OutgoingHttpHeaders = {};
          for (const [name, value] of Object.entries(headers))
            if (!PER_REQUEST_HEADERS.has(name.toLowerCase()) && value !== undefined)
              kept[name] = value;
          // A single resource's answer carries its revision's tag (rest/compat.ts), the one that
          // If-Match accepts; any other answer is tagged by its bytes.
          const etag = routerEntityTag(headers) ?? entityTag(body);
          kept.ETag = etag;
          kept["Content-Length"] = body.length;
          const answer: Answer = { version, headers: kept, body, etag };
          answers.set(key, answer);
          send(req, res, answer);
          return res;
        }
        res.writeHead(status, headers);
        return res.end(body);
      }) as typeof res.end;
    },

    /** Answers served and computed since start, and how many answers and bytes are kept. */
    stats: () => ({ hits, misses, answers: answers.size, bytes: answers.calculatedSize }),
  };
}

export type ReadSnapshot = ReturnType<typeof createReadSnapshot>;
