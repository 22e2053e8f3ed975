// The console's side of the server's session contract (GET /auth/session, POST /auth/login,
// POST /auth/logout): what the answers mean, and sign-in failures in words for operators.

import { z } from "zod";

export const ZPermissions = z.object({
  writeRules: z.boolean(),
  updateModules: z.boolean(),
  manageAccounts: z.boolean(),
  preview: z.boolean(),
  readAudit: z.boolean(),
  seeWarnings: z.boolean(),
  acknowledgeWarnings: z.boolean(),
  manageTargets: z.boolean(),
});
export type Permissions = z.infer<typeof ZPermissions>;
export type Permission = keyof Permissions;

export const ZSession = z.object({
  strategy: z.enum(["local", "keystone", "noauth"]),
  user: z.object({
    id: z.string(),
    name: z.string(),
    projectId: z.string().nullable(),
    projectName: z.string().nullable(),
    roles: z.array(z.string()),
  }),
  expiresAt: z.string().nullable(),
  csrfToken: z.string(),
  can: ZPermissions,
});
export type Session = z.infer<typeof ZSession>;

export const SIGN_IN_FIELDS = ["username", "password", "project", "domain"] as const;
export type SignInField = (typeof SIGN_IN_FIELDS)[number];

export const ZSignInRequired = z.object({
  strategy: z.enum(["local", "keystone"]),
  signIn: z.object({
    fields: z.array(z.enum(SIGN_IN_FIELDS)),
    defaultDomain: z.string().optional(),
  }),
});
export type SignInRequirements = z.infer<typeof ZSignInRequired>;

export interface Credentials {
  username: string;
  password: string;
  project?: string;
  domain?: string;
}

export const UNREACHABLE_SERVER =
  "Cannot reach the Ratecard server. Check that it is running and that the network is up, then retry.";

/** What signing in needs under a strategy, when the server has not said (the session-ended dialog). */
export function signInRequirementsFor(strategy: "local" | "keystone"): SignInRequirements {
  return strategy === "keystone"
    ? {
        strategy,
        signIn: {
          fields: ["username", "password", "project", "domain"],
          defaultDomain: "Default",
        },
      }
    : { strategy, signIn: { fields: ["username", "password"] } };
}

/** Only the fields the strategy asks for; project and domain are sent only when asked for. */
export function credentialsFor(
  requirements: SignInRequirements,
  values: Required<Credentials>,
): Credentials {
  const wanted = new Set(requirements.signIn.fields);
  return {
    username: values.username.trim(),
    password: values.password,
    ...(wanted.has("project") && { project: values.project.trim() }),
    ...(wanted.has("domain") && {
      domain: values.domain.trim() || (requirements.signIn.defaultDomain ?? "Default"),
    }),
  };
}

/** "30 seconds", "1 minute", "3 minutes": how long to wait, rounded up. */
export function formatWait(seconds: number): string {
  const whole = Math.max(1, Math.ceil(seconds));
  if (whole < 60) return whole === 1 ? "1 second" : `${whole} seconds`;
  const minutes = Math.ceil(whole / 60);
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

/** Retry-After is either a number of seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

function faultString(body: unknown): string | null {
  if (typeof body !== "object" || body === null || !("faultstring" in body)) return null;
  const text = body.faultstring;
  return typeof text === "string" && text.trim() ? text.trim() : null;
}

/** Why POST /auth/login refused, in words; `retryAfter` is the Retry-After header. */
export function describeSignInFailure(
  status: number,
  body: unknown,
  retryAfter: string | null,
  now = Date.now(),
): string {
  const serverMessage = faultString(body);
  switch (status) {
    case 400:
    case 401:
      return serverMessage ?? "The username or password is incorrect.";
    case 429: {
      const seconds = retryAfterSeconds(retryAfter, now);
      return seconds === null
        ? "Too many sign-in attempts. Wait a little, then try again."
        : `Too many sign-in attempts. Try again in ${formatWait(seconds)}.`;
    }
    case 503:
      return "The identity service (Keystone) cannot be reached, so nobody can sign in right now. Try again in a moment; if it lasts, the operator should check Keystone.";
    default:
      return serverMessage
        ? `Signing in failed: ${serverMessage}`
        : `Signing in failed (HTTP ${status}). Try again; if it lasts, check the server log.`;
  }
}

/** The header's role text: Ratecard's own role if the user has one, otherwise every role. */
export function describeRoles(session: Session): string {
  const roles = session.user.roles;
  if (roles.includes("admin")) return "admin";
  if (roles.length === 0) return "no role";
  return roles.join(", ");
}
