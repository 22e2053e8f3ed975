import {
  cloudkittyMetricsFile,
  keystoneServerEnv,
  leaseCatalog,
  startOpenStack,
} from "../../server/test/support/openstack.js";
import { startServer } from "../../server/test/support/server.js";

/**
 * Keystone and Horizon (started unless they run), a Ratecard server behind that Keystone on a
 * fresh database, and Keystone's catalog pointing the "rating" service at it until the run ends
 * (Horizon reads the endpoint from the catalog in the token it gets at sign-in). The spec reads
 * the rating API's URL from RATING_API_URL.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  await startOpenStack({ horizon: true });
  const otherRatingApi = process.env.HORIZON_RATING_URL;
  const server = otherRatingApi
    ? undefined
    : await startServer({
        env: { ...keystoneServerEnv(), METRICS_FILE: cloudkittyMetricsFile(), LOG_LEVEL: "warn" },
      });
  const ratingUrl = otherRatingApi ?? server!.baseUrl;
  process.env.RATING_API_URL = ratingUrl;
  const catalog = await leaseCatalog(ratingUrl);
  return async () => {
    await catalog.release();
    const code = await server?.stop();
    if (server && code !== 0) console.error(`Ratecard exited with ${code}:\n${server.output()}`);
  };
}
