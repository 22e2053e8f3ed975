import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdentityUnavailableError } from "../src/identity/identity.js";
import {
  createKeystoneAuthenticator,
  type KeystoneAuthenticator,
  type KeystoneOptions,
} from "../src/identity/keystone.js";
import {
  KEYSTONE_URL,
  SEED_PASSWORD,
  applicationCredential,
  keystoneForTests,
  keystoneVerdict,
  privateKeystone,
  revokeToken,
  setPassword,
  shortLivedToken,
  sleepUntil,
  userToken,
  type KeystoneInstance,
} from "./support/keystone.js";

const haveKeystone = await keystoneForTests();

function authenticator(overrides: Partial<KeystoneOptions> = {}): KeystoneAuthenticator {
  return createKeystoneAuthenticator({
    url: KEYSTONE_URL,
    username: "ratecard",
    password: SEED_PASSWORD,
    projectName: "service",
    userDomainName: "Default",
    projectDomainName: "Default",
    cacheTtlMs: 60_000,
    cacheMaxEntries: 100,
    timeoutMs: 5_000,
    ...overrides,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!haveKeystone)("Keystone authenticator against the real Keystone", () => {
  let auth: KeystoneAuthenticator;
  beforeAll(() => {
    auth = authenticator();
  });
  afterAll(() => auth.close?.());

  it("turns each seeded user's project token into its identity", async () => {
    const cases = [
      {
        user: "rating-admin",
        project: "admin",
        roles: ["admin", "member", "reader"],
        isAdmin: true,
      },
      { user: "demo-member", project: "demo", roles: ["member", "reader"], isAdmin: false },
      { user: "demo-reader", project: "demo", roles: ["reader"], isAdmin: false },
      { user: "ratecard", project: "service", roles: ["service"], isAdmin: false },
    ] as const;
    for (const expected of cases) {
      const issued = await userToken(expected.user);
      const identity = await auth.authenticate(issued.token);
      expect(identity).toEqual({
        strategy: "keystone",
        userId: issued.body.token.user.id,
        userName: expected.user,
        projectId: issued.body.token.project.id,
        projectName: expected.project,
        domainId: "default",
        roles: expect.arrayContaining([...expected.roles]),
        system: null,
        isAdmin: expected.isAdmin,
        expiresAt: issued.expiresAt,
      });
      expect([...identity!.roles].sort()).toEqual([...expected.roles].sort());
    }
  });

  it("gives an unscoped token no project and no roles, and a system token the system scope", async () => {
    const unscoped = await userToken("demo-member", { project: null });
    expect(await auth.authenticate(unscoped.token)).toMatchObject({
      userName: "demo-member",
      projectId: null,
      projectName: null,
      roles: [],
      system: null,
      isAdmin: false,
    });
    const system = await userToken("admin", { system: true });
    expect(await auth.authenticate(system.token)).toMatchObject({
      userName: "admin",
      projectId: null,
      system: "all",
      isAdmin: true,
    });
  });

  it("refuses garbage without failing, and tokens no header could carry without asking", async () => {
    expect(await auth.authenticate("garbage")).toBeNull();
    expect(await auth.authenticate("gAAAAABp" + "A".repeat(180))).toBeNull();
    expect(await auth.authenticate("")).toBeNull();
    expect(await auth.authenticate("   ")).toBeNull();
    expect(await auth.authenticate("tökén")).toBeNull();
    expect(await auth.authenticate("two words")).toBeNull();
    expect(await auth.authenticate("a".repeat(10_000))).toBeNull();
  });

  it("accepts a token with surrounding whitespace, as keystonemiddleware does", async () => {
    const issued = await userToken("demo-reader");
    expect(await auth.authenticate(` ${issued.token}\t`)).toMatchObject({
      userName: "demo-reader",
    });
  });

  it("refuses a token revoked before it was seen", async () => {
    const issued = await userToken("demo-member");
    await revokeToken(issued.token);
    expect(await auth.authenticate(issued.token)).toBeNull();
  });

  it("keeps trusting a revoked token it has validated until the cache TTL, then refuses it", async () => {
    const shortCache = authenticator({ cacheTtlMs: 1_500 });
    const issued = await userToken("rating-admin");
    expect(await shortCache.authenticate(issued.token)).toMatchObject({ userName: "rating-admin" });
    const validatedAt = Date.now();
    await revokeToken(issued.token);
    expect(await keystoneVerdict(issued.token)).toBe(404);
    // keystonemiddleware's documented behaviour: the cache answers until its entry expires.
    expect(await shortCache.authenticate(issued.token)).toMatchObject({ userName: "rating-admin" });
    const view = { dataVersion: () => 0 };
    expect(shortCache.kept?.(issued.token, view)).toMatchObject({ userName: "rating-admin" });
    await sleepUntil(new Date(validatedAt), 1_600);
    // What is kept without waiting ends with the cache entry too.
    expect(shortCache.kept?.(issued.token, view)).toBeUndefined();
    expect(await shortCache.authenticate(issued.token)).toBeNull();
  });

  it("refuses an expired token, even one it cached while it was valid", async () => {
    const longCache = authenticator({ cacheTtlMs: 600_000 });
    const issued = await shortLivedToken("demo-member", 2_000);
    try {
      const identity = await longCache.authenticate(issued.token);
      expect(identity).toMatchObject({ userName: "demo-member", projectName: "demo" });
      expect(identity!.expiresAt).toEqual(issued.expiresAt);
      await sleepUntil(issued.expiresAt, 50);
      expect(longCache.kept?.(issued.token, { dataVersion: () => 0 })).toBeUndefined();
      expect(await longCache.authenticate(issued.token)).toBeNull();
      // and one never seen before its expiry
      expect(await authenticator().authenticate(issued.token)).toBeNull();
      expect(await keystoneVerdict(issued.token)).toBe(404);
    } finally {
      await issued.credential.delete();
    }
  });

  it("keeps at most cacheMaxEntries validated tokens, least recently used out first", async () => {
    const small = authenticator({ cacheMaxEntries: 2 });
    const [first, second, third] = await Promise.all([
      userToken("demo-reader"),
      userToken("demo-reader"),
      userToken("demo-reader"),
    ]);
    for (const issued of [first, second, third]) {
      expect(await small.authenticate(issued.token)).not.toBeNull();
    }
    await revokeToken(first.token);
    await revokeToken(third.token);
    // first was evicted, so Keystone is asked again and says revoked; third is still cached.
    expect(await small.authenticate(first.token)).toBeNull();
    expect(await small.authenticate(third.token)).toMatchObject({ userName: "demo-reader" });
  });

  it("shares one validation among concurrent requests with the same token", async () => {
    const issued = await userToken("demo-member");
    const fresh = authenticator();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => fresh.authenticate(issued.token)),
    );
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(answers[0]).toMatchObject({ userName: "demo-member" });
  });

  it("is unavailable, never passing, when Keystone refuses the service credentials", async () => {
    const issued = await userToken("demo-member");
    const wrongPassword = authenticator({ password: "not-the-password" });
    await expect(wrongPassword.authenticate(issued.token)).rejects.toThrow(
      IdentityUnavailableError,
    );
    await expect(wrongPassword.authenticate(issued.token)).rejects.toThrow(
      /refused Ratecard's service credentials/,
    );
    // a user without the right to validate other users' tokens (Keystone answers 403)
    const notAService = authenticator({ username: "demo-reader", projectName: "demo" });
    await expect(notAService.authenticate(issued.token)).rejects.toThrow(IdentityUnavailableError);
    // garbage is still garbage only once Keystone could say so
    await expect(wrongPassword.authenticate("garbage")).rejects.toThrow(IdentityUnavailableError);
  });

  it("uses an application credential of the service user as its service credential", async () => {
    const credential = await applicationCredential("ratecard");
    try {
      const withCredential = authenticator({
        username: undefined,
        password: undefined,
        projectName: undefined,
        applicationCredentialId: credential.id,
        applicationCredentialSecret: credential.secret,
      });
      const issued = await userToken("rating-admin");
      expect(await withCredential.authenticate(issued.token)).toMatchObject({
        userName: "rating-admin",
        isAdmin: true,
      });
      const wrongSecret = authenticator({
        applicationCredentialId: credential.id,
        applicationCredentialSecret: "wrong",
      });
      await expect(wrongSecret.authenticate(issued.token)).rejects.toThrow(
        IdentityUnavailableError,
      );
    } finally {
      await credential.delete();
    }
  });

  it("refuses to be built without service credentials or with a URL that is not http(s)", () => {
    expect(() => authenticator({ username: undefined })).toThrow(/service credentials/);
    expect(() => authenticator({ username: undefined, applicationCredentialId: "id" })).toThrow(
      /service credentials/,
    );
    expect(() => authenticator({ url: "ftp://keystone" })).toThrow(/http/);
  });

  it("names Keystone's /v3 in WWW-Authenticate however the URL was written", () => {
    for (const url of [
      KEYSTONE_URL,
      `${KEYSTONE_URL}/`,
      `${KEYSTONE_URL}/v3`,
      `${KEYSTONE_URL}/v3/`,
    ]) {
      expect(authenticator({ url }).wwwAuthenticate).toBe(`Keystone uri="${KEYSTONE_URL}/v3"`);
    }
  });

  it("signs a user in with a project-scoped token that then authenticates", async () => {
    const session = await auth.signIn({
      username: "rating-admin",
      password: SEED_PASSWORD,
      projectName: "admin",
    });
    expect(session?.identity).toMatchObject({
      strategy: "keystone",
      userName: "rating-admin",
      projectName: "admin",
      isAdmin: true,
    });
    expect(await keystoneVerdict(session!.token)).toBe(200);
    expect(await authenticator().authenticate(session!.token)).toEqual(session!.identity);
  });

  it("signs in unscoped without a project, and with an explicit domain", async () => {
    const session = await auth.signIn({
      username: "demo-reader",
      password: SEED_PASSWORD,
      domainName: "Default",
    });
    expect(session?.identity).toMatchObject({
      userName: "demo-reader",
      projectId: null,
      roles: [],
    });
  });

  it("answers null to a wrong password, an unknown user or domain, or a project without a role", async () => {
    const attempts = [
      { username: "demo-reader", password: "wrong" },
      { username: "nobody", password: SEED_PASSWORD },
      { username: "demo-reader", password: SEED_PASSWORD, domainName: "Nowhere" },
      { username: "demo-reader", password: SEED_PASSWORD, projectName: "admin" },
      { username: "demo-reader", password: SEED_PASSWORD, projectName: "no-such-project" },
      { username: "", password: SEED_PASSWORD },
      { username: "demo-reader", password: "" },
      { username: "x".repeat(300), password: SEED_PASSWORD },
    ];
    for (const attempt of attempts) expect(await auth.signIn(attempt)).toBeNull();
  });

  it("signs out: Keystone revokes the token and it is refused at once", async () => {
    const session = await auth.signIn({
      username: "demo-member",
      password: SEED_PASSWORD,
      projectName: "demo",
    });
    expect(await auth.authenticate(session!.token)).not.toBeNull();
    await auth.signOut(session!.token);
    expect(await auth.authenticate(session!.token)).toBeNull();
    expect(await keystoneVerdict(session!.token)).toBe(404);
    // signing out again, or with garbage, is harmless
    await auth.signOut(session!.token);
    await auth.signOut("garbage");
  });
});

describe.skipIf(!haveKeystone)("Keystone authenticator when Keystone cannot answer", () => {
  const servers: Array<net.Server | http.Server> = [];
  afterAll(async () => {
    await Promise.all(
      servers.map((server) => new Promise((resolve) => server.close(() => resolve(null)))),
    );
  });

  function listen<T extends net.Server | http.Server>(server: T): Promise<string> {
    servers.push(server);
    return new Promise((resolve) =>
      server.listen(0, "127.0.0.1", () =>
        resolve(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`),
      ),
    );
  }

  it("is unavailable when nothing listens at Keystone's address", async () => {
    const closed = net.createServer();
    const url = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const issued = await userToken("demo-member");
    await expect(authenticator({ url }).authenticate(issued.token)).rejects.toThrow(
      /cannot be reached \(ECONNREFUSED\)/,
    );
  });

  it("is unavailable after timeoutMs when Keystone accepts the connection but never answers", async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    const url = await listen(silent);
    const issued = await userToken("demo-member");
    const started = Date.now();
    await expect(authenticator({ url, timeoutMs: 300 }).authenticate(issued.token)).rejects.toThrow(
      /did not answer within 300 ms/,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    for (const socket of sockets) socket.destroy();
  });

  it("is unavailable when a proxy in front of Keystone answers 503", async () => {
    const proxy = http.createServer((_request, response) => {
      response.writeHead(503, { "Content-Type": "text/html" });
      response.end("<h1>503 Service Unavailable</h1>");
    });
    const url = await listen(proxy);
    const issued = await userToken("demo-member");
    await expect(authenticator({ url }).authenticate(issued.token)).rejects.toThrow(/answered 503/);
    await expect(
      authenticator({ url }).signIn({ username: "demo-member", password: SEED_PASSWORD }),
    ).rejects.toThrow(IdentityUnavailableError);
  });

  it("logs what failed, never a token or a password", async () => {
    const proxy = http.createServer((_request, response) => {
      response.writeHead(502);
      response.end();
    });
    const url = await listen(proxy);
    const issued = await userToken("demo-member");
    const logged: unknown[] = [];
    const logger = {
      warn: (fields: object, message: string) => logged.push({ ...fields, message }),
      error: (fields: object, message: string) => logged.push({ ...fields, message }),
    };
    await expect(authenticator({ url, logger }).authenticate(issued.token)).rejects.toThrow(
      IdentityUnavailableError,
    );
    const wrongPassword = authenticator({ logger, password: "wrong-password" });
    await expect(wrongPassword.authenticate(issued.token)).rejects.toThrow(
      IdentityUnavailableError,
    );
    const closed = net.createServer();
    const closedUrl = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const down = authenticator({ logger, url: closedUrl });
    await expect(down.authenticate(issued.token)).rejects.toThrow(IdentityUnavailableError);
    await auth().signOut(issued.token);
    expect(logged).toEqual([
      {
        keystone: `${url}/v3`,
        status: 502,
        message: "Keystone answered 502 to Ratecard's service sign-in",
      },
      {
        keystone: `${KEYSTONE_URL}/v3`,
        status: 401,
        message: "Keystone refused Ratecard's service credentials",
      },
      {
        keystone: `${closedUrl}/v3`,
        method: "POST",
        path: "/auth/tokens",
        message: "Keystone cannot be reached (ECONNREFUSED)",
      },
    ]);
    const everything = JSON.stringify(logged);
    expect(everything).not.toContain(issued.token);
    expect(everything).not.toContain("wrong-password");

    function auth() {
      return authenticator({ logger });
    }
  });
});

// Stopping Keystone or changing the service user's password would break the other test files
// that share the main Keystone: these run against a Keystone of their own.
describe.skipIf(!haveKeystone)(
  "Keystone authenticator with its own Keystone stopped and restarted",
  () => {
    let keystone: KeystoneInstance;
    let auth: KeystoneAuthenticator;
    beforeAll(async () => {
      keystone = privateKeystone("authenticator", 5012);
      await keystone.start();
      auth = authenticator({ url: keystone.url, negativeCacheTtlMs: 60_000 });
    }, 600_000);
    afterAll(async () => {
      void auth?.close?.();
      await keystone?.stop();
    }, 120_000);

    it("answers 503-worthy errors while Keystone is down, and recovers when it is back", async () => {
      const seen = await userToken("demo-member", { url: keystone.url });
      const unseen = await userToken("rating-admin", { url: keystone.url });
      const revoked = await userToken("demo-reader", { url: keystone.url });
      await revokeToken(revoked.token, keystone.url);
      expect(await auth.authenticate(seen.token)).toMatchObject({ userName: "demo-member" });
      expect(await auth.authenticate(revoked.token)).toBeNull();

      await keystone.stop();
      try {
        await expect(auth.authenticate(unseen.token)).rejects.toThrow(IdentityUnavailableError);
        await expect(
          auth.signIn({ username: "demo-member", password: SEED_PASSWORD }),
        ).rejects.toThrow(IdentityUnavailableError);
        await auth.signOut(unseen.token); // best effort: does not throw
        // what the cache already knows is still answered, as keystonemiddleware does
        expect(await auth.authenticate(seen.token)).toMatchObject({ userName: "demo-member" });
        expect(await auth.authenticate(revoked.token)).toBeNull();
      } finally {
        await keystone.start();
      }
      const recovered = authenticator({ url: keystone.url });
      expect(await recovered.authenticate(unseen.token)).toMatchObject({
        userName: "rating-admin",
      });
      expect(await auth.authenticate(seen.token)).toMatchObject({ userName: "demo-member" });
    }, 180_000);

    it("gets a new service token once when Keystone revokes the one it holds", async () => {
      const before = await userToken("demo-member", { url: keystone.url });
      expect(await auth.authenticate(before.token)).not.toBeNull();
      // A password change revokes every token of the service user, including the one auth holds.
      await setPassword("ratecard", SEED_PASSWORD, keystone.url);
      // Keystone's revocation covers tokens issued in the same second: let that second pass.
      await sleep(1_100);
      const after = await userToken("demo-reader", { url: keystone.url });
      expect(await auth.authenticate(after.token)).toMatchObject({ userName: "demo-reader" });
    }, 60_000);
  },
);
