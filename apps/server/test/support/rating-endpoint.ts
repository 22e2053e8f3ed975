import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { KEYSTONE_URL, userToken } from "./keystone.js";
import { OPENSTACK_START_TIMEOUT_MS, type CatalogLease } from "./openstack.js";

// Keystone's catalog pointed at one rating endpoint, under the same lock as leaseCatalog
// (./openstack.js), but without keystone-seed.sh when Keystone is already seeded: the seed sets
// every seeded user's password again, and Keystone revokes a user's tokens whenever its password
// is set, so a seed in the middle of another test file's run turns that file's tokens into 401s
// (auth-keystone.test.ts failed so). Here only the `rating` endpoints' URLs change, through
// Keystone's REST as the bootstrap admin, which revokes nothing.

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const openstackScript = path.join(repositoryRoot, "scripts/openstack-for-tests.sh");

async function keystone(
  token: string,
  method: string,
  requestPath: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${KEYSTONE_URL}${requestPath}`, {
    method,
    headers: { "Content-Type": "application/json", "X-Auth-Token": token },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * Re-points the seeded `rating` service's endpoints (public, internal, admin in RegionOne) at
 * `ratingUrl`; false when Keystone is not seeded that way (then the seed script must run).
 */
async function repoint(ratingUrl: string): Promise<boolean> {
  const seeded = await userToken("ratecard").then(
    () => true,
    () => false,
  );
  if (!seeded) return false;
  const admin = (await userToken("admin")).token;
  const services = (await keystone(admin, "GET", "/v3/services?type=rating")).body?.services ?? [];
  const service = services.find((s: any) => s.name === "cloudkitty");
  if (!service) return false;
  const endpoints: any[] =
    (await keystone(admin, "GET", `/v3/endpoints?service_id=${service.id}`)).body?.endpoints ?? [];
  const interfaces = endpoints.map((e) => `${e.interface}@${e.region_id}`).sort();
  if (interfaces.join() !== "admin@RegionOne,internal@RegionOne,public@RegionOne") return false;
  for (const endpoint of endpoints) {
    if (endpoint.url === ratingUrl) continue;
    const patched = await keystone(admin, "PATCH", `/v3/endpoints/${endpoint.id}`, {
      endpoint: { url: ratingUrl },
    });
    if (patched.status !== 200) {
      throw new Error(`re-pointing endpoint ${endpoint.id} answered ${patched.status}`);
    }
  }
  return true;
}

/**
 * Takes the catalog lock (as leaseCatalog does) and points the catalog's `rating` service at
 * `ratingUrl` until release(): by Keystone's REST when Keystone is seeded, else by seeding it.
 */
export async function leaseRatingEndpoint(ratingUrl: string): Promise<CatalogLease> {
  const url = ratingUrl.replace(/\/+$/, "");
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
    if (!(await repoint(url))) {
      await new Promise<void>((resolve, reject) => {
        execFile(
          openstackScript,
          [url],
          { timeout: OPENSTACK_START_TIMEOUT_MS },
          (error, out, err) =>
            error
              ? reject(new Error(`seeding Keystone failed (${error.message}):\n${out}${err}`))
              : resolve(),
        );
      });
    }
  } catch (error) {
    await release();
    throw error;
  }
  return { ratingUrl: url, release };
}
