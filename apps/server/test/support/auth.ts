import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { startServer, type TestServer } from "./server.js";

/** A signed-in console session: the cookie's token (usable as X-Auth-Token too) and its CSRF token. */
export interface Session {
  token: string;
  csrfToken: string;
  cookie: string;
  body: any;
}

export async function signIn(
  baseUrl: string,
  credentials: { username: string; password: string; project?: string; domain?: string },
): Promise<Session> {
  const response = await fetch(`${baseUrl}/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(credentials),
  });
  const body: any = await response.json();
  if (response.status !== 200)
    throw new Error(`sign-in failed: ${response.status} ${JSON.stringify(body)}`);
  const setCookie = response.headers.get("set-cookie") ?? "";
  const match = /ratecard_session=([^;]+)/.exec(setCookie);
  if (!match) throw new Error(`no session cookie in ${setCookie}`);
  return {
    token: match[1]!,
    csrfToken: body.csrfToken,
    cookie: `ratecard_session=${match[1]}`,
    body,
  };
}

export interface RpcAnswer {
  status: number;
  body: any;
  /** The tRPC error code (UNAUTHORIZED, FORBIDDEN...) or undefined on success. */
  code: string | undefined;
  data: any;
}

/** One tRPC call over HTTP, as the console makes it (no batching). */
export async function rpc(
  baseUrl: string,
  procedure: string,
  input: unknown,
  options: { type?: "query" | "mutation"; headers?: Record<string, string> } = {},
): Promise<RpcAnswer> {
  const type = options.type ?? "query";
  const url = new URL(`/trpc/${procedure}`, baseUrl);
  if (type === "query" && input !== undefined) url.searchParams.set("input", JSON.stringify(input));
  const response = await fetch(url, {
    method: type === "query" ? "GET" : "POST",
    headers: { "Content-Type": "application/json", ...options.headers },
    body: type === "mutation" ? JSON.stringify(input ?? null) : undefined,
  });
  const body: any = await response.json();
  return {
    status: response.status,
    body,
    code: body?.error?.data?.code,
    data: body?.result?.data,
  };
}

export const sessionHeaders = (session: Session) => ({
  cookie: session.cookie,
  "x-csrf-token": session.csrfToken,
});

/** The reader a test makes beside the first admin (AUTH_STRATEGY=local). */
export const READER = { username: "viewer", password: "reader password 123" };

/**
 * On a server with AUTH_STRATEGY=local: the first admin signed in with `adminPassword`, and a
 * reader (READER) created by that admin and signed in.
 */
export async function signInAdminAndReader(
  baseUrl: string,
  adminPassword: string,
): Promise<{ admin: Session; reader: Session }> {
  const admin = await signIn(baseUrl, { username: "admin", password: adminPassword });
  const created = await rpc(
    baseUrl,
    "accounts.users.create",
    { name: READER.username, role: "reader", password: READER.password },
    { type: "mutation", headers: sessionHeaders(admin) },
  );
  if (created.status !== 200)
    throw new Error(
      `creating the reader failed: ${created.status} ${JSON.stringify(created.body)}`,
    );
  return { admin, reader: await signIn(baseUrl, READER) };
}

const serverEntry = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../dist/main.js",
);

/** Runs the server expecting it to refuse to start; resolves with its exit code and output. */
export function runServerExpectingExit(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [serverEntry], {
      env: { ...process.env, LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the server did not exit:\n${output}`));
    }, 20_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * A server with local accounts and a data directory of its own, started before the enclosing
 * describe's tests (the file's, called outside a describe) and stopped after them; the first
 * admin and a reader (READER) are signed in once it answers, for the tests to read.
 */
export function localAccountsServer(dataDirPrefix: string) {
  const adminPassword = "admin password 123";
  let server: TestServer | undefined;
  let sessions: { admin: Session; reader: Session } | undefined;
  beforeAll(async () => {
    server = await startServer({
      env: {
        AUTH_STRATEGY: "local",
        RATECARD_ADMIN_PASSWORD: adminPassword,
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), dataDirPrefix)),
      },
    });
    sessions = await signInAdminAndReader(server.baseUrl, adminPassword);
  });
  afterAll(async () => {
    await server?.stop();
  });
  const started = () => {
    if (!server || !sessions) throw new Error("the local-accounts server has not started");
    return { baseUrl: server.baseUrl, ...sessions };
  };
  return {
    get baseUrl(): string {
      return started().baseUrl;
    },
    get admin(): Session {
      return started().admin;
    },
    get reader(): Session {
      return started().reader;
    },
  };
}
