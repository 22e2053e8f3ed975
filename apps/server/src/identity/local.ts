import { authenticateToken } from "@ratecard/accounts";
import type { PrismaClient } from "@ratecard/db";
import type { Authenticator, Identity } from "./identity.js";

/**
 * AUTH_STRATEGY=local: API tokens and console session tokens of Ratecard's own accounts. A local
 * admin also holds "reader", so that a policy granting `role:reader` grants it to admins too, as
 * Keystone's implied roles (admin implies member implies reader) do.
 */
export function createLocalAuthenticator(prisma: PrismaClient): Authenticator {
  return {
    strategy: "local",
    async authenticate(token: string): Promise<Identity | null> {
      const found = await authenticateToken(prisma, token);
      if (!found) return null;
      const { user } = found;
      const isAdmin = user.role === "admin";
      return {
        strategy: "local",
        userId: user.id,
        userName: user.name,
        projectId: null,
        projectName: null,
        domainId: null,
        roles: isAdmin ? ["admin", "reader"] : ["reader"],
        system: null,
        isAdmin,
        expiresAt: found.token.expiresAt,
      };
    },
  };
}
