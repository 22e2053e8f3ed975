import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/**
 * The real Keystone the identity tests run against: ../shared/reference/openstack/keystone-start.sh
 * and keystone-seed.sh (users rating-admin, demo-member, demo-reader, the service user ratecard,
 * all with password "secret"; the bootstrap admin also has the system scope).
 */
export const KEYSTONE_URL = (process.env.KEYSTONE_TEST_URL || "http://127.0.0.1:5000").replace(
  /\/+$/,
  "",
);
export const SEED_PASSWORD = process.env.SEED_PASSWORD || "secret";

/** The seeded users and the project each one has a role on. */
export const SEEDED = {
  "rating-admin": { project: "admin", role: "admin" },
  "demo-member": { project: "demo", role: "member" },
  "demo-reader": { project: "demo", role: "reader" },
  ratecard: { project: "service", role: "service" },
  admin: { project: "admin", role: "admin" },
} as const;
export type SeededUser = keyof typeof SEEDED;

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const referenceDir =
  process.env.OPENSTACK_REFERENCE_DIR ||
  path.resolve(repositoryRoot, "../shared/reference/openstack");
const run = promisify(execFile);

export interface IssuedToken {
  token: string;
  /** Keystone's token body (`{ token: { user, project, roles, expires_at, ... } }`). */
  body: any;
  expiresAt: Date;
}

async function issue(url: string, auth: unknown): Promise<IssuedToken> {
  const response = await fetch(`${url}/v3/auth/tokens?nocatalog`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ auth }),
    signal: AbortSignal.timeout(10_000),
  });
  const body: any = await response.json();
  if (response.status !== 201) {
    throw new Error(`Keystone refused a token (${response.status}): ${JSON.stringify(body)}`);
  }
  return {
    token: response.headers.get("x-subject-token")!,
    body,
    expiresAt: new Date(body.token.expires_at),
  };
}

function passwordIdentity(user: string, password: string) {
  return {
    methods: ["password"],
    password: { user: { name: user, domain: { name: "Default" }, password } },
  };
}

/**
 * A password token for a seeded user: scoped to the user's project by default, to another project
 * with `project`, unscoped with `project: null`, or system-scoped with `system: true`.
 */
export function userToken(
  user: SeededUser,
  options: { project?: string | null; system?: boolean; url?: string; password?: string } = {},
): Promise<IssuedToken> {
  const project = options.project === undefined ? SEEDED[user].project : options.project;
  const scope = options.system
    ? { system: { all: true } }
    : project === null
      ? undefined
      : { project: { name: project, domain: { name: "Default" } } };
  return issue(options.url ?? KEYSTONE_URL, {
    identity: passwordIdentity(user, options.password ?? SEED_PASSWORD),
    scope,
  });
}

/**
 * Keystone's REST at `url` with a token (the bootstrap admin's or a seeded user's), answering the
 * status and the parsed body: `keystoneRest()(adminToken, "GET", "/v3/users?name=x")`.
 */
export function keystoneRest(url = KEYSTONE_URL) {
  return async (
    token: string,
    method: string,
    requestPath: string,
    body?: unknown,
  ): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${url}${requestPath}`, {
      method,
      headers: { "Content-Type": "application/json", "X-Auth-Token": token },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}

/** Revokes a token at Keystone (the token revokes itself). */
export async function revokeToken(token: string, url = KEYSTONE_URL): Promise<void> {
  const response = await fetch(`${url}/v3/auth/tokens`, {
    method: "DELETE",
    headers: { "X-Auth-Token": token, "X-Subject-Token": token },
    signal: AbortSignal.timeout(10_000),
  });
  if (response.status !== 204) throw new Error(`revoking a token answered ${response.status}`);
}

/** Keystone's own verdict on a token, asked with an admin token: the status of the validation. */
export async function keystoneVerdict(token: string, url = KEYSTONE_URL): Promise<number> {
  const admin = await userToken("admin", { url });
  const response = await fetch(`${url}/v3/auth/tokens?nocatalog`, {
    headers: { "X-Auth-Token": admin.token, "X-Subject-Token": token },
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  return response.status;
}

export interface ApplicationCredential {
  id: string;
  secret: string;
  expiresAt: Date | null;
  /** A token issued with this credential; it expires no later than the credential. */
  token(): Promise<IssuedToken>;
  delete(): Promise<void>;
}

/**
 * An application credential of a seeded user on their project (Keystone caps every token it
 * issues with one at the credential's `expires_at`; seconds precision, must be in the future).
 */
export async function applicationCredential(
  user: SeededUser,
  options: { expiresAt?: Date; url?: string } = {},
): Promise<ApplicationCredential> {
  const url = options.url ?? KEYSTONE_URL;
  const owner = await userToken(user, { url });
  const userId: string = owner.body.token.user.id;
  const response = await fetch(`${url}/v3/users/${userId}/application_credentials`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Auth-Token": owner.token },
    body: JSON.stringify({
      application_credential: {
        name: `ratecard-test-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
        expires_at: options.expiresAt?.toISOString().slice(0, 19) ?? null,
      },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const body: any = await response.json();
  if (response.status !== 201) {
    throw new Error(
      `creating an application credential answered ${response.status}: ${JSON.stringify(body)}`,
    );
  }
  const { id, secret } = body.application_credential as { id: string; secret: string };
  return {
    id,
    secret,
    expiresAt: options.expiresAt ?? null,
    token: () =>
      issue(url, {
        identity: { methods: ["application_credential"], application_credential: { id, secret } },
      }),
    delete: async () => {
      const fresh = await userToken(user, { url });
      const answer = await fetch(`${url}/v3/users/${userId}/application_credentials/${id}`, {
        method: "DELETE",
        headers: { "X-Auth-Token": fresh.token },
        signal: AbortSignal.timeout(10_000),
      });
      await answer.body?.cancel();
    },
  };
}

/**
 * A real Keystone token that expires `lifetimeMs` from now (rounded up to Keystone's whole
 * seconds, at least 2 s): issued through an application credential with that expiry, since
 * Keystone's token lifetime here is a fixed hour. Wait for `expiresAt` to have an expired token.
 */
export async function shortLivedToken(
  user: SeededUser,
  lifetimeMs: number,
  url = KEYSTONE_URL,
): Promise<IssuedToken & { credential: ApplicationCredential }> {
  const expiresAt = new Date(Math.ceil((Date.now() + Math.max(lifetimeMs, 2_000)) / 1000) * 1000);
  const credential = await applicationCredential(user, { expiresAt, url });
  const issued = await credential.token();
  return { ...issued, credential };
}

export async function sleepUntil(moment: Date, extraMs = 0): Promise<void> {
  const wait = moment.getTime() + extraMs - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

export async function keystoneAnswers(url = KEYSTONE_URL): Promise<boolean> {
  try {
    const response = await fetch(`${url}/v3`, { signal: AbortSignal.timeout(3_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Whether the Keystone tests can run: Keystone answers and the seeded service user gets a token.
 * Without a Keystone they are skipped on a workstation, but in CI (env CI set) this throws, so the
 * test file fails instead of passing silently.
 */
export async function keystoneForTests(): Promise<boolean> {
  let problem: string | null = null;
  if (!(await keystoneAnswers())) {
    problem = `no Keystone answers at ${KEYSTONE_URL} (start it with scripts/openstack-for-tests.sh)`;
  } else {
    try {
      await userToken("ratecard");
    } catch (error) {
      problem = `Keystone at ${KEYSTONE_URL} is not seeded (run keystone-seed.sh): ${String(error)}`;
    }
  }
  if (problem === null) return true;
  if (process.env.CI) throw new Error(problem);
  console.warn(`skipping the Keystone tests: ${problem}`);
  return false;
}

/** A Keystone run by the reference scripts in its own directory and port. */
export interface KeystoneInstance {
  url: string;
  dir: string;
  port: number;
  /** keystone-start.sh (idempotent), then keystone-seed.sh unless the seeded users already work. */
  start(): Promise<void>;
  /** keystone-stop.sh: the DB and keys stay, so start() brings the same tokens back. */
  stop(): Promise<void>;
}

/** The Keystone of keystone-start.sh's defaults, which every Keystone test file shares. */
export function sharedKeystone(): KeystoneInstance {
  const url = new URL(KEYSTONE_URL);
  return keystoneInstance(process.env.KS_DIR || "/tmp/ks", Number(url.port || 5000));
}

/**
 * A Keystone of one test file's own (in /tmp/ks-ratecard-private/<name>, on the given port), for what
 * would disturb other test files sharing the main Keystone: stopping it, changing the service
 * user's password. Its port must stay fixed: bootstrap writes it into the catalog once. The first
 * start bootstraps and seeds (~40 s); later starts take ~6 s.
 */
export function privateKeystone(name: string, port: number): KeystoneInstance {
  // One per test file: files run in parallel, and one stopping another's Keystone breaks both.
  return keystoneInstance(
    path.join(process.env.KEYSTONE_PRIVATE_DIR || "/tmp/ks-ratecard-private", name),
    port,
  );
}

/**
 * `ratingUrl`: where the catalog's `rating` endpoints point when start() seeds this Keystone (a
 * Keystone already seeded keeps its catalog).
 */
export function keystoneInstance(
  dir: string,
  port: number,
  ratingUrl = "http://127.0.0.1:8889",
): KeystoneInstance {
  const url = `http://127.0.0.1:${port}`;
  const env = { ...process.env, KS_DIR: dir, KS_PORT: String(port), SEED_PASSWORD };
  const script = (name: string) => path.join(referenceDir, name);
  return {
    url,
    dir,
    port,
    async start() {
      fs.mkdirSync("/tmp/ratecard-openstack", { recursive: true });
      // The same lock as scripts/openstack-for-tests.sh: one Keystone install/bootstrap at a time.
      await run(
        "flock",
        ["--close", "/tmp/ratecard-openstack/start.lock", script("keystone-start.sh")],
        { env, timeout: 600_000 },
      );
      const seeded = await userToken("ratecard", { url }).then(
        () => true,
        () => false,
      );
      if (!seeded) {
        await run(script("keystone-seed.sh"), [ratingUrl], { env, timeout: 300_000 });
      }
    },
    async stop() {
      await run(script("keystone-stop.sh"), [], { env, timeout: 60_000 });
    },
  };
}

/** Sets a user's password through the bootstrap admin; Keystone then revokes the user's tokens. */
export async function setPassword(
  user: SeededUser,
  password: string,
  url = KEYSTONE_URL,
): Promise<void> {
  const admin = await userToken("admin", { url });
  const me = await userToken(user, { url, project: null });
  const userId: string = me.body.token.user.id;
  const response = await fetch(`${url}/v3/users/${userId}`, {
    method: "PATCH",
    headers: { "Content-Type": "application/json", "X-Auth-Token": admin.token },
    body: JSON.stringify({ user: { password } }),
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  if (response.status !== 200) throw new Error(`setting a password answered ${response.status}`);
}

/** The real CloudKitty 17 with auth_strategy = keystone, run by the reference scripts. */
export interface CloudKittyBehindKeystone {
  url: string;
  /** ck-keystone-start.sh (the first start installs Debian's packages: minutes), then an empty one. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A CloudKitty behind the Keystone at `keystoneUrl` (which must be seeded, its catalog pointing
 * the `rating` service at this CloudKitty's URL), on a directory and port of its caller's own.
 */
export function cloudKittyBehindKeystone(options: {
  dir: string;
  port: number;
  keystoneUrl?: string;
}): CloudKittyBehindKeystone {
  const env = {
    ...process.env,
    CK_DIR: options.dir,
    CK_PORT: String(options.port),
    KS_URL: options.keystoneUrl ?? KEYSTONE_URL,
    SEED_PASSWORD,
  };
  const script = (name: string) => path.join(referenceDir, name);
  return {
    url: `http://127.0.0.1:${options.port}`,
    async start() {
      await run(script("ck-keystone-start.sh"), [], { env, timeout: 15 * 60_000 });
      await run(script("ck-keystone-reset.sh"), [], { env, timeout: 60_000 });
    },
    async stop() {
      await run(script("ck-keystone-stop.sh"), [], { env, timeout: 60_000 });
    },
  };
}
