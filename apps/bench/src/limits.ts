import { fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { stopChild, track } from "./children.js";
import type { CapturedAnswer } from "./http.js";
import type { LimitServerConfig } from "./limit-server.js";
import { onServerCpus } from "./pinning.js";

const LIMIT_SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), "limit-server.js");
const START_TIMEOUT_MS = 10_000;

export interface LimitServer {
  baseUrl: string;
  pid: number;
  stop(): Promise<unknown>;
}

/** A bare node:http server in a child process answering `answer`'s exact bytes to anything. */
export function startReplay(answer: CapturedAnswer): Promise<LimitServer> {
  return startLimitServer({ answer: encode(answer) });
}

/** The same, storing each request body first with one prepared INSERT into `databasePath`. */
export function startDurableInsert(
  answer: CapturedAnswer,
  database: { path: string } & SqliteDurability,
): Promise<LimitServer> {
  return startLimitServer({
    answer: encode(answer),
    durableInsert: {
      databasePath: database.path,
      journalMode: database.journalMode,
      synchronous: database.synchronous,
    },
  });
}

/**
 * The floor under a read: the replay, after what every Ratecard answer must do (see
 * LimitServerConfig.essentials), against Ratecard's own database file.
 */
export function startEssentialsFloor(
  answer: CapturedAnswer,
  essentials: { databasePath: string; logPath: string },
): Promise<LimitServer> {
  return startLimitServer({ answer: encode(answer), essentials });
}

const encode = (answer: CapturedAnswer) => ({
  status: answer.status,
  rawHeaders: answer.rawHeaders,
  bodyBase64: answer.body.toString("base64"),
});

function startLimitServer(config: LimitServerConfig): Promise<LimitServer> {
  // fork() runs `execPath ...execArgv module`: taskset execs node in place, keeping the IPC channel.
  const [command, prefix] = onServerCpus([process.execPath]);
  const child = track(
    fork(LIMIT_SERVER, [], {
      execPath: command,
      execArgv: prefix,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("the limit server did not start within 10 s"));
    }, START_TIMEOUT_MS);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the limit server exited with ${code}`));
    });
    child.once("message", (message: { port: number }) => {
      clearTimeout(timer);
      resolve({
        baseUrl: `http://127.0.0.1:${message.port}`,
        pid: child.pid ?? 0,
        stop: () => stopChild(child),
      });
    });
    child.send(config);
  });
}

export interface SqliteDurability {
  journalMode: string;
  synchronous: string;
  /** Where each value came from, for the report. */
  source: string;
}

const SYNCHRONOUS_NAMES = ["off", "normal", "full", "extra"];

/**
 * Ratecard's durability settings. The journal mode of WAL is stored in the file, so a PRAGMA on
 * another connection reads it; `synchronous` is per connection and cannot be read from outside,
 * so it is taken from the server's log when the server logs it (a `synchronous` field), else it
 * is SQLite's default for a new connection in that journal mode, with this SQLite build.
 */
export function readDurability(databasePath: string, serverLog: string): SqliteDurability {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    const journalMode = String(db.pragma("journal_mode", { simple: true }));
    const logged = loggedSynchronous(serverLog);
    if (logged)
      return {
        journalMode,
        synchronous: logged,
        source: "journal_mode: PRAGMA on the file; synchronous: the server's log",
      };
    const level = Number(db.pragma("synchronous", { simple: true }));
    return {
      journalMode,
      synchronous: SYNCHRONOUS_NAMES[level] ?? String(level),
      source:
        "journal_mode: PRAGMA on the file; synchronous: SQLite's default for a new connection (the server logs none)",
    };
  } finally {
    db.close();
  }
}

function loggedSynchronous(serverLog: string): string | undefined {
  for (const line of serverLog.split("\n")) {
    if (!line.includes('"synchronous"')) continue;
    try {
      const value = (JSON.parse(line) as Record<string, unknown>).synchronous;
      if (typeof value === "string" || typeof value === "number")
        return typeof value === "number" ? (SYNCHRONOUS_NAMES[value] ?? String(value)) : value;
    } catch {
      // not a JSON line
    }
  }
  return undefined;
}
