import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, type Client, type RequestOptions } from "./client.js";
import {
  KEYSTONE_URL,
  keystoneRest,
  SEED_PASSWORD,
  SEEDED,
  userToken,
  type SeededUser,
} from "./keystone.js";

// Starting the OpenStack control plane of ../shared/reference/openstack (Keystone, Horizon) with
// scripts/openstack-for-tests.sh, pointing its catalog at a server, and the CLI and REST clients
// that go through it. Tokens and the seeded users: ./keystone.js.

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const openstackScript = path.join(repositoryRoot, "scripts/openstack-for-tests.sh");

/** Installing Keystone (and Horizon) from Debian's packages the first time takes minutes. */
export const OPENSTACK_START_TIMEOUT_MS = 15 * 60_000;

function runScript(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      openstackScript,
      args,
      { timeout: OPENSTACK_START_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(
            new Error(
              `scripts/openstack-for-tests.sh ${args.join(" ")} failed (${error.message}):\n${stdout}${stderr}`,
            ),
          );
          return;
        }
        resolve();
      },
    );
  });
}

/** Starts Keystone (and Horizon when asked) unless it already runs. Idempotent. */
export function startOpenStack(options: { horizon?: boolean } = {}): Promise<void> {
  return runScript(options.horizon ? ["--horizon"] : []);
}

/** The environment that makes a Ratecard server validate tokens against the test Keystone. */
export function keystoneServerEnv(): Record<string, string> {
  return {
    AUTH_STRATEGY: "keystone",
    KEYSTONE_URL,
    KEYSTONE_USERNAME: "ratecard",
    KEYSTONE_PASSWORD: SEED_PASSWORD,
    KEYSTONE_PROJECT_NAME: "service",
  };
}

/**
 * CloudKitty's collector configuration, for METRICS_FILE: the copy Debian's cloudkitty-common
 * installs when it is there (the reference CloudKitty has it), else CLOUDKITTY_METRICS_FILE.
 */
export function cloudkittyMetricsFile(): string {
  const candidates = [process.env.CLOUDKITTY_METRICS_FILE, "/etc/cloudkitty/metrics.yml"];
  const found = candidates.find((file) => file && fs.existsSync(file));
  if (!found)
    throw new Error(
      "No CloudKitty metrics.yml: install cloudkitty-common or set CLOUDKITTY_METRICS_FILE",
    );
  return found;
}

/** Keystone's catalog while a test depends on it pointing at one rating endpoint. */
export interface CatalogLease {
  ratingUrl: string;
  /** Lets other tests re-point the catalog. */
  release(): Promise<void>;
}

const keystoneAsAdmin = keystoneRest();

/**
 * Re-points the seeded "rating" endpoints (public, internal, admin in RegionOne) at `ratingUrl`
 * through Keystone's REST; false when Keystone is not seeded that way and the seed must run.
 * keystone-seed.sh sets every seeded user's password again, and Keystone revokes a user's tokens
 * whenever its password is set: a seed while another test file runs turns that file's tokens
 * into 401s (auth-keystone.test.ts failed so beside cli-keystone.test.ts). This revokes nothing.
 */
async function repointRatingEndpoints(ratingUrl: string): Promise<boolean> {
  const seeded = await userToken("ratecard").then(
    () => true,
    () => false,
  );
  if (!seeded) return false;
  const admin = (await userToken("admin")).token;
  const services: any[] =
    (await keystoneAsAdmin(admin, "GET", "/v3/services?type=rating")).body?.services ?? [];
  const service = services.find((s) => s.name === "cloudkitty");
  if (!service) return false;
  const endpoints: any[] =
    (await keystoneAsAdmin(admin, "GET", `/v3/endpoints?service_id=${service.id}`)).body
      ?.endpoints ?? [];
  const where = endpoints.map((e) => `${e.interface}@${e.region_id}`).sort();
  if (where.join() !== "admin@RegionOne,internal@RegionOne,public@RegionOne") return false;
  for (const endpoint of endpoints) {
    if (endpoint.url === ratingUrl) continue;
    const patched = await keystoneAsAdmin(admin, "PATCH", `/v3/endpoints/${endpoint.id}`, {
      endpoint: { url: ratingUrl },
    });
    if (patched.status !== 200) {
      throw new Error(`re-pointing Keystone endpoint ${endpoint.id} answered ${patched.status}`);
    }
  }
  return true;
}

/**
 * Points the catalog's "rating" service at `ratingUrl` and keeps it there until release():
 * Keystone has one catalog, and a CLI or Horizon run that found another test's server in it would
 * test the wrong thing. Every test that points the catalog should come through here. A seeded
 * Keystone only has its endpoints re-pointed (repointRatingEndpoints); a Keystone not seeded yet
 * is seeded (users, roles, the rating service). The lock is an flock held by a child process, so
 * it is also released when the test process dies.
 */
export async function leaseCatalog(ratingUrl: string): Promise<CatalogLease> {
  fs.mkdirSync("/tmp/ratecard-openstack", { recursive: true });
  const holder = spawn(
    "flock",
    ["/tmp/ratecard-openstack/catalog.lock", "sh", "-c", "echo locked; exec cat >/dev/null"],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    holder.once("error", reject);
    holder.once("exit", (code) => reject(new Error(`flock exited with ${code}`)));
    holder.stdout.once("data", () => resolve());
  });
  const release = () =>
    new Promise<void>((resolve) => {
      if (holder.exitCode !== null) return resolve();
      holder.once("exit", () => resolve());
      holder.stdin.end();
    });
  try {
    const url = ratingUrl.replace(/\/+$/, "");
    if (!(await repointRatingEndpoints(url))) await runScript([url]);
  } catch (error) {
    await release();
    throw error;
  }
  return { ratingUrl, release };
}

/** The `cloudkitty` options for Keystone password auth as `user`; the catalog gives the endpoint. */
export function keystoneCliConnection(user: SeededUser): string[] {
  return [
    "--os-auth-url",
    `${KEYSTONE_URL}/v3`,
    "--os-username",
    user,
    "--os-password",
    SEED_PASSWORD,
    "--os-project-name",
    SEEDED[user].project,
    "--os-user-domain-name",
    "Default",
    "--os-project-domain-name",
    "Default",
  ];
}

/** The test REST client, sending `X-Auth-Token` on every request. */
export function createTokenClient(baseUrl: string, token: string): Client {
  const client = createClient(baseUrl);
  const withToken = (options: RequestOptions = {}): RequestOptions => ({
    ...options,
    headers: { "X-Auth-Token": token, ...options.headers },
  });
  return {
    request: (method, requestPath, options) =>
      client.request(method, requestPath, withToken(options)),
    get: (requestPath, options) => client.get(requestPath, withToken(options)),
    post: (requestPath, body, options) => client.post(requestPath, body, withToken(options)),
    put: (requestPath, body, options) => client.put(requestPath, body, withToken(options)),
    delete: (requestPath, options) => client.delete(requestPath, withToken(options)),
  };
}
