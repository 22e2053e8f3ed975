import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { stopChild, track } from "./children.js";
import { header, request } from "./http.js";
import { onServerCpus } from "./pinning.js";

/** The built server of this repository (apps/server), run as scripts/start.sh runs it. */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const SERVER_ENTRY = path.join(REPO_ROOT, "apps/server/dist/main.js");
const START_SCRIPT = path.join(REPO_ROOT, "scripts/start.sh");

/**
 * The Node flags and malloc settings scripts/start.sh gives the server (its `export NODE_OPTIONS=`
 * line and its `export MALLOC_...=` lines, without the caller's own), so that the memory measured
 * is the memory of the server as shipped. Fails loudly when those lines change shape.
 */
export function startScriptEnvironment(
  script = fs.readFileSync(START_SCRIPT, "utf8"),
): Record<string, string> {
  const nodeOptions = /^export NODE_OPTIONS="([^"$]*)\$\{NODE_OPTIONS:\+ \$NODE_OPTIONS\}"$/m.exec(
    script,
  )?.[1];
  const malloc = [...script.matchAll(/^export (MALLOC_[A-Z_]+)="\$\{\1:-(\d+)\}"$/gm)].map(
    ([, name, value]) => [name!, value!] as const,
  );
  if (nodeOptions === undefined || !malloc.some(([name]) => name === "MALLOC_ARENA_MAX"))
    throw new Error(
      `${START_SCRIPT}: no \`export NODE_OPTIONS="<flags>\${NODE_OPTIONS:+ $NODE_OPTIONS}"\` and ` +
        `\`export MALLOC_ARENA_MAX="\${MALLOC_ARENA_MAX:-<n>}"\` lines to start the server with`,
    );
  return { NODE_OPTIONS: nodeOptions.trim(), ...Object.fromEntries(malloc) };
}

const ADMIN_PASSWORD = "bench-admin-password-1";
const START_TIMEOUT_MS = 30_000;
const POLL_INTERVAL_MS = 5;

export type AuthMode = { strategy: "local"; token: string } | { strategy: "noauth"; why: string };

export interface RatecardProcess {
  baseUrl: string;
  pid: number;
  /** From spawning the process to the first 200 from /healthz. */
  startMs: number;
  /** Headers every request carries: the admin's session token under local auth. */
  authHeaders: Record<string, string>;
  auth: AuthMode;
  stop(): Promise<number | null>;
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
 * Starts the server on `databasePath` (a SQLite file, or a `postgresql://` URL; created and
 * migrated when missing) with the default log
 * level, its log appended to `logPath`, and waits for /healthz. Under `local`, signs in as the
 * first admin. If the build has no local accounts yet, falls back to noauth and says why.
 */
export interface StartOptions {
  databasePath: string;
  logPath: string;
  preferAuth: boolean;
  /** Runs node with --cpu-prof, writing the profile here when the server stops. */
  cpuProfileDir?: string | undefined;
  /** Another build's main.js instead of SERVER_ENTRY. */
  serverEntry?: string | undefined;
  /**
   * Node flags for an experiment, on node's command line after start.sh's own (which are in
   * NODE_OPTIONS): there V8's own flags (--trace-gc, --heap-growing-percent...) are accepted too.
   */
  extraNodeOptions?: string | undefined;
}

export async function startRatecard(options: StartOptions): Promise<RatecardProcess> {
  const entry = options.serverEntry ? path.resolve(options.serverEntry) : SERVER_ENTRY;
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run \`pnpm build\` first`);
  if (!options.preferAuth) return start(options, "noauth", "asked for with --noauth");
  try {
    return await start(options, "local", "");
  } catch (error) {
    const why = `local auth unavailable in this build (${(error as Error).message.split("\n")[0]})`;
    return start(options, "noauth", why);
  }
}

async function start(
  options: StartOptions,
  strategy: "local" | "noauth",
  why: string,
): Promise<RatecardProcess> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const log = fs.openSync(options.logPath, "a");
  const began = performance.now();
  const profile = options.cpuProfileDir
    ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(options.cpuProfileDir)}`]
    : [];
  const entry = options.serverEntry ? path.resolve(options.serverEntry) : SERVER_ENTRY;
  const extra = options.extraNodeOptions?.split(/\s+/).filter(Boolean) ?? [];
  const [command, args] = onServerCpus([process.execPath, ...profile, ...extra, entry]);
  const shipped = startScriptEnvironment();
  const child = track(
    spawn(command, args, {
      // As scripts/start.sh runs it from the repository root, but with none of the caller's
      // settings (CI exports DATABASE_URL, a developer may have POLICY_FILE or NODE_OPTIONS set).
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...shipped,
        HOST: "127.0.0.1",
        PORT: String(port),
        // A database URL (postgresql://...) as is, a path as a SQLite file.
        DATABASE_URL: /^[a-z]+:/.test(options.databasePath)
          ? options.databasePath
          : `file:${options.databasePath}`,
        LOG_LEVEL: "info",
        AUTH_STRATEGY: strategy,
        ...(strategy === "local" ? { RATECARD_ADMIN_PASSWORD: ADMIN_PASSWORD } : {}),
      },
      stdio: ["ignore", log, log],
    }),
  );
  fs.closeSync(log);
  try {
    await waitForHealth(child, baseUrl, options.logPath);
    const startMs = performance.now() - began;
    const auth: AuthMode =
      strategy === "local" ? { strategy, token: await signIn(baseUrl) } : { strategy, why };
    return {
      baseUrl,
      pid: child.pid ?? 0,
      startMs,
      authHeaders: auth.strategy === "local" ? { "x-auth-token": auth.token } : {},
      auth,
      stop: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

async function waitForHealth(child: ChildProcess, baseUrl: string, logPath: string) {
  const deadline = performance.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the server exited with ${child.exitCode}:\n${tail(logPath)}`);
    try {
      if ((await request(baseUrl, { method: "GET", path: "/healthz" })).status === 200) return;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline)
      throw new Error(`the server did not answer /healthz within 30 s:\n${tail(logPath)}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

async function signIn(baseUrl: string): Promise<string> {
  const answer = await request(baseUrl, {
    method: "POST",
    path: "/auth/login",
    body: JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }),
  });
  if (answer.status !== 200)
    throw new Error(`POST /auth/login answered ${answer.status}: ${answer.body.toString()}`);
  const token = /ratecard_session=([^;]+)/.exec(header(answer, "set-cookie") ?? "")?.[1];
  if (!token) throw new Error("POST /auth/login set no ratecard_session cookie");
  return token;
}

export function tail(logPath: string, lines = 20): string {
  try {
    return fs.readFileSync(logPath, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}
