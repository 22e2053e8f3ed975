import type { Authenticator, Identity } from "./identity.js";

/**
 * Development only: every request, with or without a token, is the same administrator, as with
 * CloudKitty's `auth_strategy = noauth`.
 */
export const NOAUTH_IDENTITY: Identity = Object.freeze({
  strategy: "noauth",
  userId: "noauth",
  userName: "noauth",
  projectId: null,
  projectName: null,
  domainId: null,
  roles: ["admin", "member", "reader"],
  system: null,
  isAdmin: true,
  expiresAt: new Date("9999-12-31T23:59:59Z"),
});

export const noauthAuthenticator: Authenticator = {
  strategy: "noauth",
  authenticate: () => Promise.resolve(NOAUTH_IDENTITY),
  kept: () => NOAUTH_IDENTITY,
};
