import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll } from "vitest";
import { createClient, type Client } from "./client.js";
import { startServer, type TestServer } from "./server.js";

// The real CloudKitty 17 of ../shared/reference/cloudkitty (noauth, Debian's packages), on a
// directory and port of the calling test file's own, and the real `cloudkitty` CLI against it.

const run = promisify(execFile);
const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const referenceDir =
  process.env.CLOUDKITTY_REFERENCE_DIR ??
  path.resolve(repositoryRoot, "../shared/reference/cloudkitty");

export interface ReferenceCloudKitty {
  url: string;
  /** CK_DIR: its configuration (cloudkitty.conf) and SQLite database. */
  dir: string;
  /** start.sh (the first start installs the packages: minutes), then reset.sh: an empty CloudKitty. */
  start: () => Promise<void>;
  stop: () => Promise<void>;
  /** The real CLI in noauth, `-f json` output parsed: the first row. */
  cli: (...args: string[]) => Promise<Record<string, string>>;
}

export function referenceCloudKitty(options: { dir: string; port: number }): ReferenceCloudKitty {
  const url = `http://127.0.0.1:${options.port}`;
  const env = { ...process.env, CK_DIR: options.dir, CK_PORT: String(options.port) };
  const script = (name: string) => path.join(referenceDir, name);
  return {
    url,
    dir: options.dir,
    async start() {
      await run(script("start.sh"), [], { env, timeout: 15 * 60_000 });
      await run(script("reset.sh"), [], { env, timeout: 60_000 });
    },
    async stop() {
      await run(script("stop.sh"), [], { env, timeout: 60_000 });
    },
    async cli(...args) {
      const { stdout } = await run(
        "cloudkitty",
        ["--os-auth-type", "cloudkitty-noauth", "--os-endpoint", url, ...args, "-f", "json"],
        { timeout: 60_000 },
      );
      return (JSON.parse(stdout) as Record<string, string>[])[0]!;
    },
  };
}

/**
 * The reference CloudKitty started (an empty one) and then a Ratecard server with a data
 * directory of its own (where the target key is generated, on PostgreSQL too), before the
 * enclosing describe's tests; both stopped after them, Ratecard first.
 */
export function cloudKittyAndRatecard(cloudKitty: ReferenceCloudKitty, dataDirPrefix: string) {
  let started: { server: TestServer; api: Client; dataDir: string } | undefined;
  beforeAll(async () => {
    // The first start installs Debian's CloudKitty packages: minutes.
    await cloudKitty.start();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), dataDirPrefix));
    const server = await startServer({ env: { DATA_DIR: dataDir } });
    started = { server, api: createClient(server.baseUrl), dataDir };
  }, 16 * 60_000);
  afterAll(async () => {
    await started?.server.stop();
    await cloudKitty.stop();
  }, 120_000);
  const get = () => {
    if (!started) throw new Error("CloudKitty and Ratecard have not started");
    return started;
  };
  return {
    get server(): TestServer {
      return get().server;
    },
    /** A REST client of that Ratecard server. */
    get api(): Client {
      return get().api;
    },
    get dataDir(): string {
      return get().dataDir;
    },
  };
}
