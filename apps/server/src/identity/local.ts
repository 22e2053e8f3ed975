import { accountsGeneration, authenticateToken } from "@ratecard/accounts";
import { isDatabaseUnavailable, type PrismaClient } from "@ratecard/db";
import { LRUCache } from "lru-cache";
import {
  IdentityUnavailableError,
  tokenCacheKey,
  type Authenticator,
  type Identity,
  type RequestView,
} from "./identity.js";

/** A token's verdict is asked of the database again at least this often (keeps lastUsedAt fresh). */
const RECHECK_MS = 60_000;

interface Verdict {
  identity: Identity | null;
  /** The database version it was last known to hold at. */
  version: number;
  /** The accounts' generation it was decided at. */
  generation: number;
}

/**
 * AUTH_STRATEGY=local: API tokens and console session tokens of Ratecard's own accounts. A local
 * admin also holds "reader", so that a policy granting `role:reader` grants it to admins too, as
 * Keystone's implied roles (admin implies member implies reader) do.
 *
 * Verdicts are kept while the database is unchanged (`version`, no query at all); after a commit,
 * while the accounts are unchanged (their generation, one indexed read): a revocation, a new role
 * or a deleted user moves it, in every instance, before its next request. A rule write does not,
 * so the requests after it keep their verdicts.
 */
export function createLocalAuthenticator(
  prisma: PrismaClient,
  options: { version: () => number; maxEntries?: number },
): Authenticator {
  const verdicts = new LRUCache<string, Verdict>({
    max: options.maxEntries ?? 10_000,
    ttl: RECHECK_MS,
  });

  async function check(token: string): Promise<Identity | null> {
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
  }

  const unexpired = (verdict: Verdict) =>
    !verdict.identity || verdict.identity.expiresAt.getTime() > Date.now();

  return {
    strategy: "local",
    kept(token: string, request: RequestView): Identity | undefined {
      const kept = verdicts.get(tokenCacheKey(token));
      return kept?.identity && kept.version === request.dataVersion() && unexpired(kept)
        ? kept.identity
        : undefined;
    },
    async authenticate(token: string, request?: RequestView): Promise<Identity | null> {
      const key = tokenCacheKey(token);
      const version = request ? request.dataVersion() : options.version();
      const kept = verdicts.get(key);
      if (kept && kept.version === version && unexpired(kept)) return kept.identity;
      try {
        // Read before the check, so that a change made during it moves the generation past this one.
        const generation = await accountsGeneration(prisma);
        if (kept && kept.generation === generation && unexpired(kept)) {
          kept.version = version;
          return kept.identity;
        }
        const identity = await check(token);
        verdicts.set(key, { identity, version, generation });
        return identity;
      } catch (error) {
        // The token's verdict cannot be known (503), which is not "unknown token" (401): a kept
        // verdict is not served either, as a revocation may be what could not be read.
        if (isDatabaseUnavailable(error)) {
          throw new IdentityUnavailableError("The accounts database cannot be reached", {
            cause: error,
          });
        }
        throw error;
      }
    },
  };
}
