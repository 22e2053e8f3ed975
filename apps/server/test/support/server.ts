import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isPostgres, newPostgresDatabase } from "./database.js";

const serverEntry = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../dist/main.js",
);

export interface TestServer {
  baseUrl: string;
  port: number;
  /** The SQLite file, or with RATECARD_TEST_DATABASE=postgresql the database's URL. */
  databasePath: string;
  process: ChildProcess;
  /** Everything the server printed so far (JSON log lines). */
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * The JSON lines the server has logged so far, in order. A line still being written (the output
 * arrives through a pipe, in chunks) is left out until it is whole.
 */
export function logEntries(server: TestServer): Record<string, unknown>[] {
  const entries: Record<string, unknown>[] = [];
  for (const line of server.output().split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      entries.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // Not whole yet, or not a log line.
    }
  }
  return entries;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts the built server (dist/main.js) as its own process on a free port with a fresh SQLite
 * file in a temporary directory (or a fresh PostgreSQL database, see newPostgresDatabase), and
 * waits until it answers. A `databasePath` that is a file path is always SQLite.
 */
export async function startServer(
  options: { env?: Record<string, string>; databasePath?: string } = {},
): Promise<TestServer> {
  const port = await freePort();
  const databasePath =
    options.databasePath ??
    (process.env.RATECARD_TEST_DATABASE === "postgresql"
      ? newPostgresDatabase()
      : path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-test-")), "ratecard.db"));
  const child = spawn(process.execPath, [serverEntry], {
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: isPostgres(databasePath) ? databasePath : `file:${databasePath}`,
      LOG_LEVEL: "info",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${baseUrl}/healthz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not start within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    baseUrl,
    port,
    databasePath,
    process: child,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        // A child killed by a signal (SIGKILL in a test) has no exit code, only its signal.
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once("exit", (code) => resolve(code));
        child.kill("SIGTERM");
      }),
  };
}
