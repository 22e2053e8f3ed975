import { hash } from "node:crypto";

/**
 * Who is making a request, as every authentication strategy reports it. The policy engine reads
 * `roles`, `projectId`, `userId`, `domainId`, `isAdmin` and `system` as oslo.policy reads a
 * request context's credentials; the audit of writes reads the names too.
 */
export interface Identity {
  /** Which strategy vouched for this identity. */
  strategy: "keystone" | "local" | "noauth";
  userId: string;
  userName: string;
  /** The scoped project (Keystone), or null for unscoped/system/local tokens. */
  projectId: string | null;
  projectName: string | null;
  /** The user's domain (Keystone), or null. */
  domainId: string | null;
  /** Role names, lower-case, as Keystone lists them (admin, member, reader, service...). */
  roles: string[];
  /** Keystone's `system` scope ("all") or null. */
  system: string | null;
  /** oslo.policy's `is_admin` credential. */
  isAdmin: boolean;
  /** When the token stops being valid. */
  expiresAt: Date;
}

/**
 * What the request being authenticated has already read: strategies that keep verdicts while the
 * database is unchanged compare with the version the whole request is served at (one look per
 * request, shared with the read snapshot) instead of looking again.
 */
export interface RequestView {
  dataVersion(): number;
}

/** A token could not be checked because the identity service cannot be reached: answer 503. */
export class IdentityUnavailableError extends Error {}

/**
 * One authentication strategy. `authenticate` resolves to the token's identity, or to null for a
 * missing/malformed/revoked/expired/unknown token (answered 401), and throws
 * IdentityUnavailableError when the answer cannot be known (answered 503). It never passes a token
 * it could not check.
 */
export interface Authenticator {
  readonly strategy: Identity["strategy"];
  authenticate(token: string, request?: RequestView): Promise<Identity | null>;
  /**
   * The identity of a token whose verdict the strategy keeps and may give for this request without
   * waiting, as authenticate() would give it; undefined when only authenticate() can say (nothing
   * kept, kept at another database version, a refused token). Lets a kept answer be served in the
   * request's own turn.
   */
  kept?(token: string, request: RequestView): Identity | undefined;
  /** Releases timers and connections on shutdown. */
  close?(): Promise<void> | void;
}

export interface SignInInput {
  username: string;
  password: string;
  /** Keystone only: the project to scope the token to, and the user's and project's domain. */
  project?: string;
  domain?: string;
}

/** The console's sign-in for a strategy with credentials (local and keystone). */
export interface SignInProvider {
  /** What the sign-in form asks for. */
  readonly fields: readonly ("username" | "password" | "project" | "domain")[];
  /** A token for these credentials, or null when they are wrong. */
  signIn(input: SignInInput): Promise<{ token: string; identity: Identity } | null>;
  /** Ends the session the token stands for (revokes it). */
  signOut(token: string): Promise<void>;
}

/** What token caches keep as the key: a digest, so no raw token stays in memory longer than needed. */
export function tokenCacheKey(token: string): string {
  return hash("sha256", token, "hex");
}
