import type { PrismaClient } from "@ratecard/db";

// /healthz says the process is alive (it answers without touching the database); /readyz says it
// can serve: a load balancer sends traffic to an instance only while /readyz is 200.

/** How long the readiness check waits for the database before calling it unreachable. */
const DATABASE_CHECK_MS = 2_000;

export interface Readiness {
  ready: boolean;
  /** "ok", or why not. */
  checks: { database: string };
}

export function createReadinessCheck(prisma: PrismaClient) {
  return async function readiness(): Promise<Readiness> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${DATABASE_CHECK_MS} ms`)),
        DATABASE_CHECK_MS,
      );
    });
    try {
      // Through the same client and connection the requests use, not a side channel.
      await Promise.race([prisma.$queryRaw`SELECT 1`, timeout]);
      return { ready: true, checks: { database: "ok" } };
    } catch (error) {
      const reason = error instanceof Error ? error.message.split("\n")[0]! : String(error);
      return { ready: false, checks: { database: `unreachable: ${reason}` } };
    } finally {
      clearTimeout(timer);
    }
  };
}
