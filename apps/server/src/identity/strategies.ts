import {
  authenticateToken,
  checkPassword,
  ensureFirstAdmin,
  issueToken,
  revokeToken,
} from "@ratecard/accounts";
import { isDatabaseUnavailable, type Database } from "@ratecard/db";
import type { Logger } from "pino";
import type { AuthConfig } from "../config.js";
import { IdentityUnavailableError, type Authenticator, type SignInProvider } from "./identity.js";
import { createKeystoneAuthenticator } from "./keystone.js";
import { createLocalAuthenticator } from "./local.js";
import { noauthAuthenticator } from "./noauth.js";

/** One strategy's parts, as the HTTP edge uses them. */
export interface IdentitySetup {
  authenticator: Authenticator;
  /** null: nobody signs in (noauth). */
  signIn: SignInProvider | null;
  /** The `WWW-Authenticate` of a 401. */
  wwwAuthenticate: string;
  /** Said once at start (where the first admin's password went, and so on). */
  notices: string[];
}

export async function createIdentity(
  auth: AuthConfig,
  database: Pick<Database, "prisma" | "dataVersion">,
  logger: Logger,
): Promise<IdentitySetup> {
  const { prisma } = database;
  switch (auth.strategy) {
    case "noauth":
      return {
        authenticator: noauthAuthenticator,
        signIn: null,
        wwwAuthenticate: 'Ratecard realm="ratecard"',
        notices: auth.explicit ? ["AUTH_STRATEGY=noauth: every request is an administrator's"] : [],
      };
    case "keystone": {
      const keystone = createKeystoneAuthenticator({ ...auth.keystone, logger });
      return {
        authenticator: keystone,
        signIn: {
          fields: ["username", "password", "project", "domain"],
          signIn: ({ username, password, project, domain }) =>
            keystone.signIn({ username, password, projectName: project, domainName: domain }),
          signOut: (token) => keystone.signOut(token),
        },
        wwwAuthenticate: keystone.wwwAuthenticate,
        notices: [],
      };
    }
    case "local": {
      const firstAdmin = await ensureFirstAdmin(prisma, {
        password: auth.adminPassword,
        dataDir: auth.dataDir,
      });
      const authenticator = createLocalAuthenticator(prisma, { version: database.dataVersion });
      return {
        authenticator,
        signIn: {
          fields: ["username", "password"],
          signIn: ({ username, password }) =>
            unlessDatabaseDown(async () => {
              const user = await checkPassword(prisma, username, password);
              if (!user) return null;
              const { secret } = await issueToken(prisma, {
                userId: user.id,
                kind: "session",
                ttlMs: auth.sessionTtlMs,
              });
              const identity = await authenticator.authenticate(secret);
              return identity ? { token: secret, identity } : null;
            }),
          signOut: (token) =>
            unlessDatabaseDown(async () => {
              const session = await authenticateToken(prisma, token);
              if (session) await revokeToken(prisma, session.token.id);
            }),
        },
        wwwAuthenticate: 'Ratecard realm="ratecard"',
        notices: firstAdmin.passwordFile
          ? [
              `created the first administrator "admin"; its password is in ${firstAdmin.passwordFile}`,
            ]
          : firstAdmin.created
            ? ['created the first administrator "admin" with RATECARD_ADMIN_PASSWORD']
            : [],
      };
    }
  }
}

/** Local sign-in and sign-out with the database down: the 503 of an identity service away. */
async function unlessDatabaseDown<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isDatabaseUnavailable(error))
      throw new IdentityUnavailableError("the database is unavailable");
    throw error;
  }
}
