import { randomBytes } from "node:crypto";
import { hash, parseOptions, verify, type Algorithm, type Options } from "@node-rs/argon2";
import { AccountError } from "./errors.js";

// `Algorithm` is an ambient const enum, which isolatedModules cannot inline (and the package's
// runtime export of it is empty).
const ARGON2ID: Algorithm = 2;

/**
 * OWASP's first recommended argon2id configuration (Password Storage Cheat Sheet): 19 MiB, two
 * passes, one lane: about 9 ms per hash on one core of the CI machine, and 19 MiB per login.
 */
const argon2idOptions = {
  algorithm: ARGON2ID,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
} as const satisfies Options;

export const MIN_PASSWORD_LENGTH = 12;
/** Beyond this a "password" is an attempt to make hashing expensive, not a password. */
export const MAX_PASSWORD_LENGTH = 1024;

/** Throws AccountError "invalid" with a message saying what a password must be. */
export function assertPasswordPolicy(password: string): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) {
    throw new AccountError(
      "invalid",
      `A password must be at least ${MIN_PASSWORD_LENGTH} characters long.`,
    );
  }
  if (length > MAX_PASSWORD_LENGTH) {
    throw new AccountError(
      "invalid",
      `A password must be at most ${MAX_PASSWORD_LENGTH} characters long.`,
    );
  }
}

/** An argon2id PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) with a random salt. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, argon2idOptions);
}

/** False for a wrong password and for a stored hash that is not a valid argon2 string. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** Whether a stored hash was made with other parameters than today's (then rehash on login). */
export function needsRehash(passwordHash: string): boolean {
  try {
    const used = parseOptions(passwordHash);
    return (
      used.algorithm !== argon2idOptions.algorithm ||
      used.memoryCost !== argon2idOptions.memoryCost ||
      used.timeCost !== argon2idOptions.timeCost ||
      used.parallelism !== argon2idOptions.parallelism
    );
  } catch {
    return true;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * A hash of a password nobody knows, made with the same parameters as real ones: verifying an
 * unknown user's attempt against it costs what verifying a known user's does, so the answer time
 * does not tell which user names exist.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(32).toString("base64url"));
  return dummyHash;
}

/** A random password for a generated account: 144 bits in 24 base64url characters. */
export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}
