import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseCookies } from "cookie";
import type { Access, AccessRefusal, Actor } from "@ratecard/api";
import type { Policy } from "@ratecard/policy";
import {
  IdentityUnavailableError,
  type Authenticator,
  type Identity,
} from "../identity/identity.js";
import { drainBody } from "../http-body.js";
import { FailedAttempts } from "./attempts.js";
import {
  policyRefusal,
  sendForbidden,
  sendIdentityUnavailable,
  sendTooManyAttempts,
  sendUnauthorized,
  UNAUTHENTICATED_MESSAGE,
} from "./answers.js";
import type { Forwarded } from "./forwarded.js";
import { restRules } from "./rest-rules.js";
import { rpcRule } from "./rpc-rules.js";

/** The console's session: an HttpOnly cookie holding the same kind of token X-Auth-Token carries. */
export const SESSION_COOKIE = "ratecard_session";
/** Longer than any Keystone or Ratecard token; anything beyond is refused unchecked. */
const MAX_TOKEN_LENGTH = 8192;
const TOKEN_SHAPE = /^[\x21-\x7e]+$/;

/** How one request was authenticated. `identity` is null when it carried no valid token. */
export interface RequestAuth {
  identity: Identity | null;
  token: string | null;
  /** The token came from the session cookie: state-changing calls must prove same-origin (CSRF). */
  viaCookie: boolean;
  /** The request carried the session's CSRF token. */
  csrfOk: boolean;
}

export interface AuthEdgeOptions {
  authenticator: Authenticator;
  policy: Policy;
  forwarded: Forwarded;
  wwwAuthenticate: string;
  authFailuresPerMinute: number;
  /** The database's version as this request sees it (one look per request). */
  dataVersionOf: (req: IncomingMessage) => number;
}

/** oslo.policy's view of an identity, with the credential names CloudKitty's rules use. */
export function credentialsOf(identity: Identity): Record<string, unknown> {
  return {
    roles: identity.roles,
    user_id: identity.userId,
    user_name: identity.userName,
    project_id: identity.projectId,
    project_name: identity.projectName,
    domain_id: identity.domainId,
    user_domain_id: identity.domainId,
    system_scope: identity.system,
    is_admin: identity.isAdmin,
  };
}

/** Derived from the session token: a cross-site page can neither read the cookie nor compute it. */
export function csrfTokenFor(sessionToken: string): string {
  return createHash("sha256").update(`ratecard-csrf\0${sessionToken}`).digest("base64url");
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A token worth asking a strategy about: within the length limit, printable ASCII only. */
function wellFormed(token: string): boolean {
  return token.length <= MAX_TOKEN_LENGTH && TOKEN_SHAPE.test(token);
}

function headerValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

export function createAuthEdge(options: AuthEdgeOptions) {
  const { authenticator, policy, forwarded } = options;
  const failures = new FailedAttempts(options.authFailuresPerMinute);
  const requests = new WeakMap<IncomingMessage, RequestAuth>();

  function readToken(req: IncomingMessage, cookieAllowed: boolean) {
    const header = headerValue(req.headers["x-auth-token"]);
    if (header !== undefined) return { token: header.trim(), viaCookie: false };
    if (cookieAllowed && req.headers.cookie) {
      const cookie = parseCookies(req.headers.cookie)[SESSION_COOKIE];
      if (cookie) return { token: cookie, viaCookie: true };
    }
    return { token: null, viaCookie: false };
  }

  /**
   * Authenticates a request; answers 429 or 503 itself (and returns null) when it cannot say.
   * Only tokens that were offered and refused count as failed attempts.
   */
  async function identify(
    req: IncomingMessage,
    res: ServerResponse,
    cookieAllowed: boolean,
  ): Promise<RequestAuth | null> {
    const { token, viaCookie } = readToken(req, cookieAllowed);
    const auth: RequestAuth = { identity: null, token, viaCookie, csrfOk: false };
    if (authenticator.strategy === "noauth") {
      auth.identity = await authenticator.authenticate(token ?? "");
      auth.csrfOk = true;
      requests.set(req, auth);
      return auth;
    }
    if (token === null || token === "") {
      requests.set(req, auth);
      return auth;
    }
    const client = forwarded.clientAddress(req);
    // Most requests come while no failure is recent: they skip the limiter's promise.
    const wait = failures.anyRecent() ? await failures.retryAfterMs(client) : 0;
    if (wait > 0) {
      await drainBody(req);
      sendTooManyAttempts(res, wait);
      return null;
    }
    try {
      auth.identity = wellFormed(token)
        ? await authenticator.authenticate(token, {
            dataVersion: () => options.dataVersionOf(req),
          })
        : null;
    } catch (error) {
      if (error instanceof IdentityUnavailableError) {
        await drainBody(req);
        sendIdentityUnavailable(res);
        return null;
      }
      throw error;
    }
    if (auth.identity && auth.identity.expiresAt.getTime() <= Date.now()) auth.identity = null;
    if (!auth.identity) await failures.record(client);
    const csrf = headerValue(req.headers["x-csrf-token"]);
    auth.csrfOk = !viaCookie || (csrf !== undefined && sameSecret(csrf, csrfTokenFor(token)));
    requests.set(req, auth);
    return auth;
  }

  // Strategies hand out the same Identity object while its verdict is kept, and the policy is fixed
  // at start: a rule's verdict for an identity is decided once.
  const verdicts = new WeakMap<Identity, Map<string, boolean>>();
  function allows(identity: Identity, rule: string): boolean {
    let decided = verdicts.get(identity);
    if (!decided) verdicts.set(identity, (decided = new Map<string, boolean>()));
    let allowed = decided.get(rule);
    if (allowed === undefined) {
      allowed = policy.enforce(rule, credentialsOf(identity), {});
      decided.set(rule, allowed);
    }
    return allowed;
  }

  /** The first of a REST request's policy rules this identity is refused, if any (its 403). */
  function refusedRestRule(identity: Identity, method: string, path: string): string | undefined {
    return restRules(method, path).find((rule) => !allows(identity, rule));
  }

  return {
    identify,
    allows,

    /**
     * CloudKitty's REST: 401 before routing for a missing or invalid token, then the policy rules
     * of the path (403). Resolves to true when the request may be routed.
     */
    async guardRest(
      req: IncomingMessage,
      res: ServerResponse,
      method: string,
      path: string,
    ): Promise<boolean> {
      const auth = await identify(req, res, false);
      if (!auth) return false;
      if (!auth.identity) {
        await drainBody(req);
        sendUnauthorized(res, options.wwwAuthenticate);
        return false;
      }
      const refused = refusedRestRule(auth.identity, method, path);
      if (refused !== undefined) {
        await drainBody(req);
        sendForbidden(res, refused);
        return false;
      }
      return true;
    },

    /**
     * guardRest's answer for a read, without waiting, when it is "may be routed": the token has a
     * verdict its strategy keeps for the data as this request sees it, no client is being slowed
     * down for failed attempts, and the policy allows the path. The request's authentication is
     * recorded as identify() records it. False says nothing: the request then takes guardRest's
     * way, which gives every refusal.
     */
    admitsRead(req: IncomingMessage, path: string): boolean {
      if (!authenticator.kept || failures.anyRecent()) return false;
      const { token } = readToken(req, false);
      const checkable =
        authenticator.strategy === "noauth" ||
        (token !== null && token !== "" && wellFormed(token));
      if (!checkable) return false;
      const identity = authenticator.kept(token ?? "", {
        dataVersion: () => options.dataVersionOf(req),
      });
      if (!identity || identity.expiresAt.getTime() <= Date.now()) return false;
      if (refusedRestRule(identity, "GET", path) !== undefined) return false;
      requests.set(req, { identity, token, viaCookie: false, csrfOk: true });
      return true;
    },

    /** The request's authentication, once identify() has run for it. */
    authOf(req: IncomingMessage): RequestAuth | undefined {
      return requests.get(req);
    },

    actorOf(req: IncomingMessage): Actor | null {
      const identity = requests.get(req)?.identity;
      if (!identity) return null;
      return {
        userId: identity.userId,
        userName: identity.userName,
        projectId: identity.projectId,
        address: forwarded.clientAddress(req),
      };
    },

    /** Whether every one of these RPC queries would be allowed (so a kept answer may be sent). */
    rpcAllowsAll(req: IncomingMessage, procedures: string[]): boolean {
      const access = this.rpcAccess(req);
      return procedures.every((procedure) => access.check(procedure, "query") === null);
    },

    /** Whether the request's caller may manage every local account (not just their own tokens). */
    mayManageAccounts(req: IncomingMessage): boolean {
      const identity = requests.get(req)?.identity;
      return identity?.strategy === "local" && allows(identity, "ratecard:manage_accounts");
    },

    /** The verdict on each RPC call of a request (a batch answers each call on its own). */
    rpcAccess(req: IncomingMessage): Access {
      const auth = requests.get(req);
      return {
        check(path, type): AccessRefusal | null {
          if (!auth?.identity) return { code: "UNAUTHORIZED", message: UNAUTHENTICATED_MESSAGE };
          if (type !== "query" && !auth.csrfOk)
            return {
              code: "FORBIDDEN",
              message: "This request must carry the session's CSRF token (x-csrf-token).",
            };
          if (path.startsWith("accounts.") && auth.identity.strategy !== "local")
            return {
              code: "NOT_FOUND",
              message: "Ratecard's own accounts exist only with AUTH_STRATEGY=local.",
            };
          const rule = rpcRule(path, type);
          if (rule === undefined) return { code: "NOT_FOUND", message: `No procedure ${path}` };
          if (rule !== null && !allows(auth.identity, rule))
            return { code: "FORBIDDEN", message: policyRefusal(rule) };
          return null;
        },
      };
    },
  };
}

export type AuthEdge = ReturnType<typeof createAuthEdge>;
