import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { TargetSecretBox } from "@ratecard/api";

/** The file the generated key is kept in, beside the local accounts' one-time password file. */
export const TARGET_KEY_FILE = "target-secret-key";

function readKeyFile(file: string): Buffer {
  const key = Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64");
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}

/**
 * The key that encrypts CloudKitty targets' secrets: RATECARD_SECRET_KEY (checked at start by
 * the configuration), or else a key generated once into the data directory, mode 0600, never
 * overwritten. It is generated on first use, so that a server that never registers a target
 * writes nothing. Several instances on PostgreSQL must share one key: set RATECARD_SECRET_KEY.
 */
export function loadTargetKey(configured: Buffer | undefined, dataDir: string): Buffer {
  if (configured) return configured;
  const file = path.join(dataDir, TARGET_KEY_FILE);
  try {
    return readKeyFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    // "wx": another instance that wrote it first wins, and both then read the same key.
    fs.writeFileSync(file, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return readKeyFile(file);
}

/** One box per process, its key loaded on first use. */
export function targetSecretsOf(
  configured: Buffer | undefined,
  dataDir: string,
  requestTimeoutMs?: number,
) {
  let box: TargetSecretBox | undefined;
  return () =>
    (box ??= new TargetSecretBox(loadTargetKey(configured, dataDir), { requestTimeoutMs }));
}
