import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

// The real CloudKitty 17 of ../shared/reference/cloudkitty (Debian's packages, noauth, SQLite),
// on a directory and port of this package's own, and the real `cloudkitty` CLI to seed it.

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

export const referenceDir =
  process.env.CLOUDKITTY_REFERENCE_DIR ??
  path.resolve(repositoryRoot, "../shared/reference/cloudkitty");

export const CK_DIR = process.env.CK_CLIENT_TEST_DIR ?? "/tmp/ck-client-test";
export const CK_PORT = Number(process.env.CK_CLIENT_TEST_PORT ?? 8931);
export const CK_URL = `http://127.0.0.1:${CK_PORT}`;

/** The first start installs Debian's CloudKitty packages: minutes. */
const START_TIMEOUT_MS = 15 * 60_000;

export function runScript(
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
  timeout = START_TIMEOUT_MS,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      script,
      args,
      { env: { ...process.env, ...env }, timeout, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${script} failed (${error.message}):\n${stdout}${stderr}`));
        else resolve(stdout + stderr);
      },
    );
  });
}

const ckEnv = { CK_DIR, CK_PORT: String(CK_PORT) };

export const startCloudKitty = () => runScript(path.join(referenceDir, "start.sh"), [], ckEnv);
export const stopCloudKitty = () => runScript(path.join(referenceDir, "stop.sh"), [], ckEnv);
/** Empties the hashmap and pyscripts tables (modules keep their state). */
export const resetCloudKitty = () =>
  runScript(path.join(referenceDir, "reset.sh"), [], ckEnv, 60_000);

/** Runs the real CLI against `url` in noauth and returns its `-f json` output. */
export function cloudkittyCli(url: string, args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      "cloudkitty",
      ["--os-auth-type", "cloudkitty-noauth", "--os-endpoint", url, ...args],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`cloudkitty ${args.join(" ")} failed: ${stderr}${stdout}`));
          return;
        }
        // Not every command takes -f json (`module set priority` prints a table).
        const text = stdout.trim();
        resolve(/^[[{]/.test(text) ? JSON.parse(text) : text);
      },
    );
  });
}

/** The body CloudKitty sends for a GET, as text: what the client must keep byte for byte. */
export async function rawGet(url: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return response.text();
}
