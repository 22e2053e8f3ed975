import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PrismaClient } from "@ratecard/db";
import { AccountError } from "./errors.js";
import { generatePassword } from "./passwords.js";
import { createUser } from "./users.js";

export const FIRST_ADMIN_NAME = "admin";
export const INITIAL_PASSWORD_FILE = "initial-admin-password";

/**
 * Creates the `admin` user when there is no user at all; does nothing otherwise. The password is
 * `password` (the caller reads RATECARD_ADMIN_PASSWORD), or a random one written once to
 * `<dataDir>/initial-admin-password` (mode 0600, never overwritten; the caller may log the file's
 * path, never its content).
 *
 * Safe when two instances start together: the unique user name lets one create the admin, and
 * only that one publishes its password file. The file is written under a temporary name first and
 * then hard-linked into place, which fails rather than overwrite, so the published password is
 * always the admin's: a crash after the user is created leaves the temporary file, not a lost
 * password.
 */
export async function ensureFirstAdmin(
  prisma: PrismaClient,
  options: { password?: string | undefined; dataDir: string },
): Promise<{ created: boolean; passwordFile?: string }> {
  if ((await prisma.localUser.count()) > 0) return { created: false };

  if (options.password !== undefined) {
    return { created: await createFirstAdmin(prisma, options.password) };
  }

  const passwordFile = path.join(options.dataDir, INITIAL_PASSWORD_FILE);
  if (fs.existsSync(passwordFile)) {
    throw new AccountError(
      "conflict",
      `${passwordFile} exists but the database has no user: it belongs to another database. ` +
        "Remove it, or set RATECARD_ADMIN_PASSWORD.",
    );
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const password = generatePassword();
  const pendingFile = `${passwordFile}.${randomUUID()}.tmp`;
  fs.writeFileSync(pendingFile, `${password}\n`, { mode: 0o600, flag: "wx" });
  let created: boolean;
  try {
    created = await createFirstAdmin(prisma, password);
  } catch (error) {
    fs.rmSync(pendingFile, { force: true });
    throw error;
  }
  if (!created) {
    fs.rmSync(pendingFile, { force: true });
    return { created: false };
  }
  try {
    fs.linkSync(pendingFile, passwordFile);
  } catch {
    throw new AccountError(
      "conflict",
      `The first admin was created, but ${passwordFile} appeared meanwhile: its password is in ${pendingFile}.`,
    );
  }
  fs.rmSync(pendingFile);
  return { created: true, passwordFile };
}

/** False when another instance created the admin first. */
async function createFirstAdmin(prisma: PrismaClient, password: string): Promise<boolean> {
  try {
    await createUser(prisma, { name: FIRST_ADMIN_NAME, role: "admin", password });
    return true;
  } catch (error) {
    if (error instanceof AccountError && error.kind === "conflict") return false;
    throw error;
  }
}
