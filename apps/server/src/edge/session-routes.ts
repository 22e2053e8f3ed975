import type { IncomingMessage, ServerResponse } from "node:http";
import { serialize as serializeCookie } from "cookie";
import getRawBody from "raw-body";
import { z } from "zod";
import {
  IdentityUnavailableError,
  type Identity,
  type SignInProvider,
} from "../identity/identity.js";
import { faultBody, sendFault, sendJson } from "../rest/faults.js";
import { drainBody } from "../http-body.js";
import { FailedAttempts } from "./attempts.js";
import { sendIdentityUnavailable, sendTooManyAttempts } from "./answers.js";
import { csrfTokenFor, SESSION_COOKIE, type AuthEdge } from "./auth-edge.js";
import type { Forwarded } from "./forwarded.js";

// The console's session on /auth/*: who am I (and what may I do), sign in, sign out.

const LOGIN_BODY_LIMIT = 16 * 1024;

const ZSignIn = z.object({
  username: z.string().trim().min(1).max(255),
  password: z.string().min(1).max(4096),
  project: z.string().trim().max(255).optional(),
  domain: z.string().trim().max(255).optional(),
});

export interface SessionRoutesOptions {
  edge: AuthEdge;
  strategy: Identity["strategy"];
  signIn: SignInProvider | null;
  forwarded: Forwarded;
  loginAttemptsPerMinute: number;
}

export function createSessionRoutes(options: SessionRoutesOptions) {
  const { edge, strategy, signIn, forwarded } = options;
  const loginFailures = new FailedAttempts(options.loginAttemptsPerMinute);

  function sessionBody(identity: Identity, token: string | null) {
    const accounts = identity.strategy === "local";
    return {
      strategy,
      user: {
        id: identity.userId,
        name: identity.userName,
        projectId: identity.projectId,
        projectName: identity.projectName,
        roles: identity.roles,
      },
      expiresAt: identity.strategy === "noauth" ? null : identity.expiresAt.toISOString(),
      csrfToken: token ? csrfTokenFor(token) : "",
      can: {
        writeRules: edge.allows(identity, "rating:module_config"),
        updateModules: edge.allows(identity, "rating:update_module"),
        manageAccounts: accounts && edge.allows(identity, "ratecard:manage_accounts"),
        preview: edge.allows(identity, "ratecard:preview"),
        readAudit: edge.allows(identity, "ratecard:read_audit"),
        seeWarnings: edge.allows(identity, "ratecard:warnings"),
        acknowledgeWarnings: edge.allows(identity, "ratecard:acknowledge_warnings"),
        manageTargets: edge.allows(identity, "ratecard:manage_targets"),
      },
    };
  }

  function signInHint() {
    return {
      strategy,
      signIn: { fields: signIn?.fields ?? [], defaultDomain: "Default" },
    };
  }

  function sessionCookie(req: IncomingMessage, token: string, expiresAt: Date | null): string {
    return serializeCookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: "strict",
      secure: forwarded.isSecure(req),
      path: "/",
      ...(expiresAt
        ? { maxAge: Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000)) }
        : { maxAge: 0 }),
    });
  }

  async function readSignIn(req: IncomingMessage) {
    const type = req.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json") {
      await drainBody(req);
      return { error: "Send the credentials as application/json." };
    }
    let raw: string;
    try {
      raw = await getRawBody(req, { limit: LOGIN_BODY_LIMIT, encoding: "utf8" });
    } catch {
      return {
        error: `The sign-in request must be a JSON object under ${LOGIN_BODY_LIMIT} bytes.`,
      };
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return { error: "Request is not in valid JSON format" };
    }
    const parsed = ZSignIn.safeParse(json);
    if (!parsed.success) return { error: "Give a username and a password." };
    return { input: parsed.data };
  }

  async function session(req: IncomingMessage, res: ServerResponse) {
    const auth = await edge.identify(req, res, true);
    if (!auth) return;
    if (auth.identity) return sendJson(res, 200, sessionBody(auth.identity, auth.token));
    sendJson(res, 401, {
      ...faultBody(401, "Sign in to continue."),
      ...signInHint(),
    });
  }

  async function login(req: IncomingMessage, res: ServerResponse) {
    const client = forwarded.clientAddress(req);
    const wait = signIn ? await loginFailures.retryAfterMs(client) : 0;
    if (!signIn || wait > 0) await drainBody(req);
    if (!signIn) return sendFault(res, 404, "This server needs no sign-in (AUTH_STRATEGY=noauth).");
    if (wait > 0) return sendTooManyAttempts(res, wait);
    const body = await readSignIn(req);
    if ("error" in body) return sendFault(res, 400, body.error ?? "Bad request");
    let result: Awaited<ReturnType<SignInProvider["signIn"]>>;
    try {
      result = await signIn.signIn(body.input);
    } catch (error) {
      if (error instanceof IdentityUnavailableError) return sendIdentityUnavailable(res);
      throw error;
    }
    if (!result) {
      await loginFailures.record(client);
      return sendFault(res, 401, "The username or password is incorrect.");
    }
    sendJson(res, 200, sessionBody(result.identity, result.token), {
      "Set-Cookie": sessionCookie(req, result.token, result.identity.expiresAt),
      "Cache-Control": "no-store",
    });
  }

  async function logout(req: IncomingMessage, res: ServerResponse) {
    const auth = await edge.identify(req, res, true);
    if (!auth) return;
    if (auth.viaCookie && !auth.csrfOk)
      return sendFault(
        res,
        403,
        "This request must carry the session's CSRF token (x-csrf-token).",
      );
    if (auth.identity && auth.token && signIn) {
      try {
        await signIn.signOut(auth.token);
      } catch (error) {
        if (!(error instanceof IdentityUnavailableError)) throw error;
        // The cookie still goes: the token expires at the identity service on its own.
      }
    }
    res.writeHead(204, { "Set-Cookie": sessionCookie(req, "", null) }).end();
  }

  return async function handleSession(req: IncomingMessage, res: ServerResponse, pathname: string) {
    const method = req.method ?? "GET";
    const route = `${method} ${pathname.replace(/\/+$/, "")}`;
    if (route === "GET /auth/session") return session(req, res);
    if (route === "POST /auth/login") return login(req, res);
    if (route === "POST /auth/logout") return logout(req, res);
    const known = ["/auth/session", "/auth/login", "/auth/logout"].includes(
      pathname.replace(/\/+$/, ""),
    );
    if (known) return sendFault(res, 405, `The method ${method} is not allowed for this resource`);
    sendFault(res, 404, `Resource not found: ${pathname}`);
  };
}
