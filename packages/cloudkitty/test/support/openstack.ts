import fs from "node:fs";
import path from "node:path";
import { referenceDir, runScript } from "./cloudkitty.js";

// A Keystone of this package's own (its own directory and port, so its catalog is nobody else's)
// and the real CloudKitty 17 behind it, from ../shared/reference/openstack.

const openstackDir =
  process.env.OPENSTACK_REFERENCE_DIR ?? path.resolve(referenceDir, "../openstack");

export const KS_DIR = process.env.CK_CLIENT_KS_DIR ?? "/tmp/ks-ck-client";
export const KS_PORT = Number(process.env.CK_CLIENT_KS_PORT ?? 5931);
export const KS_URL = `http://127.0.0.1:${KS_PORT}`;
export const CK_KS_DIR = process.env.CK_CLIENT_CK_KS_DIR ?? "/tmp/ck-client-ks";
export const CK_KS_PORT = Number(process.env.CK_CLIENT_CK_KS_PORT ?? 8932);
export const CK_KS_URL = `http://127.0.0.1:${CK_KS_PORT}`;
export const SEED_PASSWORD = "secret";

const env = {
  KS_DIR,
  KS_PORT: String(KS_PORT),
  KS_URL,
  CK_DIR: CK_KS_DIR,
  CK_PORT: String(CK_KS_PORT),
  SEED_PASSWORD,
};
const script = (name: string) => path.join(openstackDir, name);

/**
 * Keystone (installed, bootstrapped and seeded the first time: about a minute), its catalog's
 * `rating` endpoints pointing at a CloudKitty started with auth_strategy = keystone, emptied.
 */
export async function startCloudKittyBehindKeystone(): Promise<void> {
  fs.mkdirSync("/tmp/ratecard-openstack", { recursive: true });
  // The lock scripts/openstack-for-tests.sh takes: one Keystone install or bootstrap at a time.
  await runScript(
    "flock",
    ["--close", "/tmp/ratecard-openstack/start.lock", script("keystone-start.sh")],
    env,
  );
  await runScript(script("keystone-seed.sh"), [CK_KS_URL], env);
  await runScript(script("ck-keystone-start.sh"), [], env);
  await runScript(script("ck-keystone-reset.sh"), [], env, 60_000);
}

export async function stopCloudKittyBehindKeystone(): Promise<void> {
  await runScript(script("ck-keystone-stop.sh"), [], env, 60_000);
  await runScript(script("keystone-stop.sh"), [], env, 60_000);
}

/** A project-scoped token of a seeded user, and the user's id, straight from Keystone's REST. */
export async function passwordToken(
  username: string,
  project: string,
): Promise<{ token: string; userId: string }> {
  const response = await fetch(`${KS_URL}/v3/auth/tokens`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      auth: {
        identity: {
          methods: ["password"],
          password: {
            user: { name: username, domain: { id: "default" }, password: SEED_PASSWORD },
          },
        },
        scope: { project: { name: project, domain: { id: "default" } } },
      },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const body: any = await response.json();
  if (response.status !== 201) throw new Error(`token for ${username}: ${response.status}`);
  return { token: response.headers.get("x-subject-token")!, userId: body.token.user.id };
}

/** Keystone's REST as the bootstrap admin or a seeded user. */
export async function keystoneRequest(
  token: string,
  method: string,
  requestPath: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${KS_URL}${requestPath}`, {
    method,
    headers: { "Content-Type": "application/json", "X-Auth-Token": token },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
