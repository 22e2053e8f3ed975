import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { logEntries, type TestServer } from "./server.js";

/** The real CloudKitty client (Debian: python3-cloudkittyclient). CLOUDKITTY_CLI overrides the command. */
export const CLOUDKITTY_CLI = process.env.CLOUDKITTY_CLI ?? "cloudkitty";
const CLI_TIMEOUT_MS = 30_000;

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** One output row of a cliff lister (`-f json`): column titles as keys, e.g. `{"Service ID": ...}`. */
export type CliRow = Record<string, unknown>;

function run(args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(
      CLOUDKITTY_CLI,
      args,
      {
        timeout: CLI_TIMEOUT_MS,
        // Only what Python needs: OS_* variables from the caller must not redirect the client.
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: process.env.HOME ?? "/tmp",
          LANG: "C.UTF-8",
          PYTHONIOENCODING: "utf-8",
        },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error && (error as NodeJS.ErrnoException).code === "ENOENT") {
          reject(
            new Error(
              `The CloudKitty client "${CLOUDKITTY_CLI}" is not installed. These tests drive the real client: ` +
                "install it with `apt-get install python3-cloudkittyclient` (or set CLOUDKITTY_CLI).",
            ),
          );
          return;
        }
        if (error?.killed) {
          reject(
            new Error(
              `${CLOUDKITTY_CLI} ${args.join(" ")} did not finish within ${CLI_TIMEOUT_MS} ms`,
            ),
          );
          return;
        }
        const exitCode = typeof error?.code === "number" ? error.code : error ? 1 : 0;
        resolve({ exitCode, stdout, stderr });
      },
    );
  });
}

/** The `cloudkitty` command against a server, with CloudKitty's no-auth plugin, as an operator runs it. */
export function createCli(baseUrl: string) {
  return createCliWith(["--os-auth-type", "cloudkitty-noauth", "--os-endpoint", baseUrl]);
}

/**
 * The `cloudkitty` command with the given connection options (auth plugin, credentials, endpoint),
 * e.g. Keystone password auth that finds the rating endpoint in the catalog.
 */
export function createCliWith(connection: string[]) {
  const cli = (...args: string[]) => run([...connection, ...args]);
  return {
    run: cli,
    /** Runs a command with `-f json`, expects exit 0 and returns the parsed rows. */
    async rows(...args: string[]): Promise<CliRow[]> {
      const result = await cli(...args, "-f", "json");
      if (result.exitCode !== 0) {
        throw new Error(
          `cloudkitty ${args.join(" ")} exited with ${result.exitCode}:\n${result.stderr}${result.stdout}`,
        );
      }
      return JSON.parse(result.stdout) as CliRow[];
    },
    /** Runs a command that prints nothing on success (deletes), expects exit 0. */
    async quiet(...args: string[]): Promise<void> {
      const result = await cli(...args);
      if (result.exitCode !== 0) {
        throw new Error(
          `cloudkitty ${args.join(" ")} exited with ${result.exitCode}:\n${result.stderr}${result.stdout}`,
        );
      }
    },
  };
}

export type Cli = ReturnType<typeof createCli>;

/** `cloudkitty --version`; rejects with install instructions when the client is missing. */
export async function cliVersion(): Promise<string> {
  const result = await run(["--version"]);
  return `${result.stdout}${result.stderr}`.trim();
}

/** One request as the server logged it (the access log's "request completed" lines). */
export interface LoggedRequest {
  method: string;
  url: string;
  status: number;
}

interface RequestLogLine {
  msg?: string;
  req?: { method?: string; url?: string };
  res?: { status?: number };
}

export function loggedRequests(server: TestServer): LoggedRequest[] {
  const requests: LoggedRequest[] = [];
  for (const entry of logEntries(server) as RequestLogLine[]) {
    if (!entry.req?.method || !entry.req.url || entry.res?.status === undefined) continue;
    requests.push({ method: entry.req.method, url: entry.req.url, status: entry.res.status });
  }
  return requests;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends a marker request and waits until the server's log shows it: log lines reach the test
 * through a pipe, a little after the answers. Returns the number of requests logged up to and
 * including the marker.
 */
async function logBarrier(server: TestServer): Promise<number> {
  const marker = `/healthz?barrier=${randomUUID()}`;
  const answer = await fetch(`${server.baseUrl}${marker}`);
  await answer.arrayBuffer();
  const deadline = Date.now() + 10_000;
  for (;;) {
    const index = loggedRequests(server).findIndex((request) => request.url === marker);
    if (index >= 0) return index + 1;
    if (Date.now() > deadline) throw new Error(`the server never logged ${marker}`);
    await pause(20);
  }
}

/** Runs `action` and returns what it returned with every request the server answered meanwhile. */
export async function recordRequests<T>(
  server: TestServer,
  action: () => Promise<T>,
): Promise<{ result: T; requests: LoggedRequest[] }> {
  const start = await logBarrier(server);
  const result = await action();
  const end = await logBarrier(server);
  return { result, requests: loggedRequests(server).slice(start, end - 1) };
}

/** The fault a failed command printed: the client writes `<response body> (HTTP <status>)` to stderr. */
export function cliFault(result: CliResult): { status: number; body: unknown } {
  const match = /^(\{.*\}) \(HTTP (\d{3})\)$/m.exec(result.stderr);
  if (!match)
    throw new Error(
      `no HTTP fault in the output of the client (exit ${result.exitCode}):\n${result.stderr}`,
    );
  return { status: Number(match[2]), body: JSON.parse(match[1]!) };
}

/** A text column of a row, e.g. `column(row, "Service ID")`; fails when it is not text. */
export function column(row: CliRow, name: string): string {
  const value = row[name];
  if (typeof value !== "string")
    throw new Error(`column "${name}" is not text: ${JSON.stringify(row)}`);
  return value;
}
