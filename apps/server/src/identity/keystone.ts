import { LRUCache } from "lru-cache";
import { z } from "zod";
import {
  IdentityUnavailableError,
  tokenCacheKey,
  type Authenticator,
  type Identity,
} from "./identity.js";

export interface KeystoneOptions {
  /** Keystone's address, with or without `/v3` and trailing slashes. */
  url: string;
  username?: string;
  password?: string;
  projectName?: string;
  userDomainName: string;
  projectDomainName: string;
  /** An application credential of Ratecard's service user, instead of username/password. */
  applicationCredentialId?: string;
  applicationCredentialSecret?: string;
  /** Upper bound of how long a validated token is trusted without asking Keystone again. */
  cacheTtlMs: number;
  /** Bound of the validated-token cache, and separately of the refused-token cache. */
  cacheMaxEntries: number;
  /** How long a refused token is remembered; default min(5 s, cacheTtlMs). */
  negativeCacheTtlMs?: number;
  /** Per Keystone call. */
  timeoutMs: number;
  /** Where Keystone failures are reported (pino's signature). Tokens are never passed to it. */
  logger?: KeystoneLogger;
}

export interface KeystoneLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface KeystoneAuthenticator extends Authenticator {
  /**
   * The console's sign-in: password auth (project-scoped when projectName is given). null when
   * Keystone refuses the credentials. Throws IdentityUnavailableError when Keystone cannot be reached.
   */
  signIn(input: {
    username: string;
    password: string;
    projectName?: string;
    domainName?: string;
  }): Promise<{ token: string; identity: Identity } | null>;
  /** Revokes a user token at Keystone (the console's sign-out). Best effort: never throws. */
  signOut(token: string): Promise<void>;
  /** `WWW-Authenticate` value: `Keystone uri="<url>/v3"`. */
  readonly wwwAuthenticate: string;
}

// What Ratecard reads of Keystone's token body (GET and POST /v3/auth/tokens); the rest is ignored.
const ZKeystoneTokenBody = z.object({
  token: z.object({
    expires_at: z.string(),
    user: z.object({
      id: z.string(),
      name: z.string(),
      domain: z.object({ id: z.string() }).optional(),
    }),
    project: z.object({ id: z.string(), name: z.string() }).optional(),
    roles: z.array(z.object({ name: z.string() })).optional(),
    system: z.record(z.string(), z.unknown()).optional(),
  }),
});

// Tokens are header values: visible ASCII only. Fernet tokens are ~200 characters, JWS tokens
// ~800; anything else is refused without bothering Keystone (and could not be sent by fetch).
const TOKEN_SHAPE = /^[\x21-\x7e]{1,8192}$/;

// keystoneauth renews a token that expires within 120 s; a short-lived one (an application
// credential about to expire) is renewed at half its life instead.
const SERVICE_TOKEN_RENEW_MARGIN_MS = 120_000;
const DEFAULT_NEGATIVE_CACHE_TTL_MS = 5_000;

interface IssuedToken {
  token: string;
  identity: Identity;
}

interface ServiceTokenEntry {
  token: Promise<IssuedToken>;
  renewAt: number;
}

export function keystoneRoot(url: string): string {
  const root = url.trim().replace(/\/+$/, "").replace(/\/v3$/, "");
  const parsed = new URL(root);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new Error(`Keystone URL must be http(s), got "${url}"`);
  }
  return root;
}

function identityFromBody(body: unknown): Identity {
  const parsed = ZKeystoneTokenBody.safeParse(body);
  if (!parsed.success) {
    throw new IdentityUnavailableError("Keystone answered a token body Ratecard cannot read");
  }
  const { token } = parsed.data;
  const expiresAt = new Date(token.expires_at);
  if (Number.isNaN(expiresAt.getTime())) {
    throw new IdentityUnavailableError("Keystone answered a token without a readable expiry");
  }
  const roles = (token.roles ?? []).map((role) => role.name.toLowerCase());
  return {
    strategy: "keystone",
    userId: token.user.id,
    userName: token.user.name,
    projectId: token.project?.id ?? null,
    projectName: token.project?.name ?? null,
    domainId: token.user.domain?.id ?? null,
    roles,
    system: token.system?.all === true ? "all" : null,
    isAdmin: roles.includes("admin"),
    expiresAt,
  };
}

export function createKeystoneAuthenticator(options: KeystoneOptions): KeystoneAuthenticator {
  const root = keystoneRoot(options.url);
  const v3 = `${root}/v3`;
  const usesApplicationCredential = Boolean(options.applicationCredentialId);
  if (usesApplicationCredential ? !options.applicationCredentialSecret : !options.username) {
    throw new Error(
      "Keystone needs Ratecard's service credentials: a username and password, or an application credential id and secret",
    );
  }
  const negativeTtlMs = Math.min(
    options.negativeCacheTtlMs ?? DEFAULT_NEGATIVE_CACHE_TTL_MS,
    options.cacheTtlMs,
  );
  // Two caches, so that a flood of garbage tokens cannot evict the valid ones.
  const validated =
    options.cacheMaxEntries > 0 && options.cacheTtlMs > 0
      ? new LRUCache<string, Identity>({ max: options.cacheMaxEntries })
      : null;
  const refused =
    options.cacheMaxEntries > 0 && negativeTtlMs > 0
      ? new LRUCache<string, true>({ max: options.cacheMaxEntries, ttl: negativeTtlMs })
      : null;
  // Concurrent requests with one token share one Keystone round trip.
  const inFlight = new Map<string, Promise<Identity | null>>();
  let service: ServiceTokenEntry | null = null;

  async function keystoneFetch(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<Response> {
    try {
      return await fetch(`${v3}${path}`, {
        method,
        headers: {
          Accept: "application/json",
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === "TimeoutError";
      const reason = timedOut
        ? `did not answer within ${options.timeoutMs} ms`
        : `cannot be reached (${describeFetchError(error)})`;
      options.logger?.error({ keystone: v3, method, path: pathOnly(path) }, `Keystone ${reason}`);
      throw new IdentityUnavailableError(`Keystone at ${v3} ${reason}`);
    }
  }

  async function readJson(response: Response): Promise<unknown> {
    try {
      return await response.json();
    } catch {
      throw new IdentityUnavailableError(`Keystone at ${v3} answered a body that is not JSON`);
    }
  }

  function unexpected(response: Response, what: string): IdentityUnavailableError {
    void response.body?.cancel().catch(() => undefined);
    options.logger?.error(
      { keystone: v3, status: response.status },
      `Keystone answered ${response.status} to ${what}`,
    );
    return new IdentityUnavailableError(`Keystone at ${v3} answered ${response.status} to ${what}`);
  }

  async function issueServiceToken(): Promise<IssuedToken> {
    const identity = usesApplicationCredential
      ? {
          methods: ["application_credential"],
          application_credential: {
            id: options.applicationCredentialId,
            secret: options.applicationCredentialSecret,
          },
        }
      : {
          methods: ["password"],
          password: {
            user: {
              name: options.username,
              domain: { name: options.userDomainName },
              password: options.password ?? "",
            },
          },
        };
    const scope =
      !usesApplicationCredential && options.projectName
        ? { project: { name: options.projectName, domain: { name: options.projectDomainName } } }
        : undefined;
    const response = await keystoneFetch(
      "POST",
      "/auth/tokens?nocatalog",
      {},
      { auth: { identity, scope } },
    );
    if (response.status === 401) {
      void response.body?.cancel().catch(() => undefined);
      options.logger?.error(
        { keystone: v3, status: 401 },
        "Keystone refused Ratecard's service credentials",
      );
      throw new IdentityUnavailableError(
        `Keystone at ${v3} refused Ratecard's service credentials`,
      );
    }
    if (response.status !== 201) throw unexpected(response, "Ratecard's service sign-in");
    const token = response.headers.get("x-subject-token");
    if (!token) throw unexpected(response, "Ratecard's service sign-in (no X-Subject-Token)");
    return { token, identity: identityFromBody(await readJson(response)) };
  }

  function serviceToken(): Promise<IssuedToken> {
    if (service === null || Date.now() >= service.renewAt) {
      const entry: ServiceTokenEntry = { token: issueServiceToken(), renewAt: Infinity };
      entry.token.then(
        ({ identity }) => {
          const now = Date.now();
          const life = identity.expiresAt.getTime() - now;
          entry.renewAt =
            now + Math.max(0, life - Math.min(SERVICE_TOKEN_RENEW_MARGIN_MS, life / 2));
        },
        () => {
          if (service === entry) service = null;
        },
      );
      service = entry;
    }
    return service.token;
  }

  function forgetServiceToken(token: Promise<IssuedToken>): void {
    if (service?.token === token) service = null;
  }

  async function validateAtKeystone(token: string): Promise<Identity | null> {
    for (let attempt = 1; ; attempt++) {
      const current = serviceToken();
      const { token: serviceTokenValue } = await current;
      const response = await keystoneFetch("GET", "/auth/tokens?nocatalog", {
        "X-Auth-Token": serviceTokenValue,
        "X-Subject-Token": token,
      });
      // Keystone reports every problem of the subject token (unknown, revoked, expired) as 404;
      // 401 is about the service token, which may have been revoked or expired early: get a new
      // one once, as keystonemiddleware does.
      if (response.status === 200) return identityFromBody(await readJson(response));
      if (response.status === 404) {
        void response.body?.cancel().catch(() => undefined);
        return null;
      }
      if (response.status === 401 && attempt === 1) {
        void response.body?.cancel().catch(() => undefined);
        forgetServiceToken(current);
        continue;
      }
      if (response.status === 401) {
        void response.body?.cancel().catch(() => undefined);
        options.logger?.error(
          { keystone: v3, status: 401 },
          "Keystone refused Ratecard's fresh service token",
        );
        throw new IdentityUnavailableError(
          `Keystone at ${v3} refused Ratecard's service token twice`,
        );
      }
      // 403: the service user lacks the right to validate tokens (a deployment error).
      throw unexpected(response, "a token validation");
    }
  }

  function remember(key: string, identity: Identity | null): void {
    if (identity === null) {
      validated?.delete(key);
      refused?.set(key, true);
      return;
    }
    const ttl = Math.min(options.cacheTtlMs, identity.expiresAt.getTime() - Date.now());
    if (ttl > 0) validated?.set(key, identity, { ttl });
  }

  function kept(token: string): Identity | undefined {
    const cached = validated?.get(tokenCacheKey(token.trim()));
    return cached && cached.expiresAt.getTime() > Date.now() ? cached : undefined;
  }

  async function authenticate(rawToken: string): Promise<Identity | null> {
    const token = rawToken.trim();
    if (!TOKEN_SHAPE.test(token)) return null;
    const key = tokenCacheKey(token);
    const cached = validated?.get(key);
    if (cached) {
      if (cached.expiresAt.getTime() > Date.now()) return cached;
      validated?.delete(key);
      return null;
    }
    if (refused?.has(key)) return null;
    const pending = inFlight.get(key);
    if (pending) return pending;
    const validation = validateAtKeystone(token)
      .then((identity) => {
        const live = identity !== null && identity.expiresAt.getTime() > Date.now();
        remember(key, live ? identity : null);
        return live ? identity : null;
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, validation);
    return validation;
  }

  async function signIn(input: {
    username: string;
    password: string;
    projectName?: string;
    domainName?: string;
  }): Promise<{ token: string; identity: Identity } | null> {
    if (!input.username || !input.password) return null;
    const userDomain = input.domainName || options.userDomainName;
    const scope = input.projectName
      ? {
          project: {
            name: input.projectName,
            domain: { name: input.domainName || options.projectDomainName },
          },
        }
      : undefined;
    const response = await keystoneFetch(
      "POST",
      "/auth/tokens?nocatalog",
      {},
      {
        auth: {
          identity: {
            methods: ["password"],
            password: {
              user: {
                name: input.username,
                domain: { name: userDomain },
                password: input.password,
              },
            },
          },
          scope,
        },
      },
    );
    // 401: wrong password, unknown user or domain, or no role on the project; 400: what
    // Keystone's schema refuses (e.g. an over-long name). Neither is the caller's outage.
    if (response.status === 401 || response.status === 400) {
      void response.body?.cancel().catch(() => undefined);
      return null;
    }
    if (response.status !== 201) throw unexpected(response, "a sign-in");
    const token = response.headers.get("x-subject-token");
    if (!token) throw unexpected(response, "a sign-in (no X-Subject-Token)");
    const identity = identityFromBody(await readJson(response));
    // Keystone just vouched for it: the console's next request need not ask again.
    remember(tokenCacheKey(token), identity);
    return { token, identity };
  }

  async function signOut(rawToken: string): Promise<void> {
    const token = rawToken.trim();
    if (!TOKEN_SHAPE.test(token)) return;
    remember(tokenCacheKey(token), null);
    try {
      // A user may revoke their own token: no service token needed.
      const response = await keystoneFetch("DELETE", "/auth/tokens", {
        "X-Auth-Token": token,
        "X-Subject-Token": token,
      });
      void response.body?.cancel().catch(() => undefined);
      // 401/404: already revoked or expired, which is what was asked.
      if (response.status >= 500) {
        options.logger?.warn(
          { keystone: v3, status: response.status },
          "Keystone did not revoke a token at sign-out",
        );
      }
    } catch {
      // Already logged by keystoneFetch; the token stays refused here for the negative TTL.
    }
  }

  return {
    strategy: "keystone",
    wwwAuthenticate: `Keystone uri="${v3}"`,
    authenticate,
    kept,
    signIn,
    signOut,
    close() {
      validated?.clear();
      refused?.clear();
      service = null;
    },
  };
}

function pathOnly(path: string): string {
  return path.split("?")[0] ?? path;
}

function describeFetchError(error: unknown): string {
  // undici wraps the socket error (ECONNREFUSED, ENOTFOUND...) in `cause`.
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === "string") return cause.code;
  return error instanceof Error ? error.message : String(error);
}
