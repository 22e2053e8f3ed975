import { randomUUID } from "node:crypto";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  CloudKittyAuthError,
  CloudKittyClient,
  cloudKittyTarget,
  type CloudKittyClientError,
} from "../src/index.js";
import {
  CK_KS_URL,
  KS_URL,
  SEED_PASSWORD,
  keystoneRequest,
  passwordToken,
  startCloudKittyBehindKeystone,
  stopCloudKittyBehindKeystone,
} from "./support/openstack.js";
import { startRecordingProxy } from "./support/recording-proxy.js";

// CloudKitty 17 with auth_strategy = keystone, behind a Keystone of this package's own. Set
// CK_CLIENT_KEYSTONE_TESTS=0 to leave it out (it installs Keystone the first time: a minute or two).
const enabled = process.env.CK_CLIENT_KEYSTONE_TESTS !== "0";

describe.runIf(enabled)("through Keystone's catalog", () => {
  const password = cloudKittyTarget({
    kind: "keystone",
    authUrl: `${KS_URL}/v3`,
    credential: {
      kind: "password",
      username: "rating-admin",
      password: SEED_PASSWORD,
      projectName: "admin",
    },
  });
  let applicationCredential: { id: string; secret: string; userId: string };
  let userToken: string;

  beforeAll(async () => {
    await startCloudKittyBehindKeystone();
    const user = await passwordToken("rating-admin", "admin");
    userToken = user.token;
    const created = await keystoneRequest(
      user.token,
      "POST",
      `/v3/users/${user.userId}/application_credentials`,
      { application_credential: { name: `ck-client-test-${randomUUID()}` } },
    );
    expect(created.status).toBe(201);
    applicationCredential = {
      id: created.body.application_credential.id,
      secret: created.body.application_credential.secret,
      userId: user.userId,
    };
  }, 15 * 60_000);

  afterAll(async () => {
    if (applicationCredential) {
      await keystoneRequest(
        userToken,
        "DELETE",
        `/v3/users/${applicationCredential.userId}/application_credentials/${applicationCredential.id}`,
      );
    }
    await stopCloudKittyBehindKeystone();
  });

  it("authenticates with a password, finds the rating endpoint and writes and reads rules", async () => {
    const client = new CloudKittyClient(password);
    const report = await client.probe();
    expect(report).toMatchObject({
      reachable: true,
      auth: "ok",
      endpoint: CK_KS_URL,
      generation: "pre-23",
      problem: undefined,
    });
    expect(report.modules?.map((module) => module.module_id)).toEqual(
      expect.arrayContaining(["hashmap", "pyscripts"]),
    );

    const service = (await client.createService("compute")).object;
    const field = (await client.createField({ service_id: service.service_id, name: "flavor" }))
      .object;
    await client.createMapping({ field_id: field.field_id, value: "m1.small", cost: "0.5" });
    await client.createThreshold({ service_id: service.service_id, level: "2", cost: "1" });
    await client.createScript({ name: "noop", data: "pass\n" });

    const ruleSet = await client.readRuleSet();
    expect(ruleSet.endpoint).toBe(CK_KS_URL);
    expect(ruleSet.services).toHaveLength(1);
    expect(ruleSet.services[0]!.fields[0]!.mappings[0]).toMatchObject({
      value: "m1.small",
      cost: "0.5000000000000000000000000000",
    });
    expect(ruleSet.services[0]!.thresholds[0]).toMatchObject({ level: "2.00000000" });
    expect(ruleSet.scripts.map((script) => script.name)).toEqual(["noop"]);
  });

  it("reads the same rule set with an application credential", async () => {
    const withPassword = await new CloudKittyClient(password).readRuleSet();
    const client = new CloudKittyClient(
      cloudKittyTarget({
        kind: "keystone",
        authUrl: KS_URL,
        region: "RegionOne",
        interface: "internal",
        credential: {
          kind: "application-credential",
          id: applicationCredential.id,
          secret: applicationCredential.secret,
        },
      }),
    );
    expect(await client.readRuleSet()).toEqual(withPassword);
    expect((await client.probe()).auth).toBe("ok");
  });

  it("asks Keystone once for a token, and once more when CloudKitty refuses it", async () => {
    const keystone = await startRecordingProxy(KS_URL);
    try {
      const client = new CloudKittyClient(
        cloudKittyTarget({
          kind: "keystone",
          authUrl: keystone.url,
          credential: {
            kind: "password",
            username: "rating-admin",
            password: SEED_PASSWORD,
            projectName: "admin",
          },
        }),
      );
      const tokenRequests = () =>
        keystone.requests.filter((request) => request.url === "/v3/auth/tokens").length;
      await client.endpoint();
      // A token CloudKitty has not seen yet, revoked: keystonemiddleware will refuse it.
      const admin = await passwordToken("admin", "admin");
      const user = await keystoneRequest(admin.token, "GET", "/v3/users?name=rating-admin");
      const userId = user.body.users[0].id;
      await keystoneRequest(admin.token, "PATCH", `/v3/users/${userId}`, {
        user: { enabled: false },
      });
      await keystoneRequest(admin.token, "PATCH", `/v3/users/${userId}`, {
        user: { enabled: true },
      });

      // Keystone revokes every token issued up to the revocation's second, by whole seconds.
      await new Promise((resolve) => setTimeout(resolve, 1500));

      await client.listServices();
      await client.readRuleSet();
      expect(tokenRequests()).toBe(2);
    } finally {
      await keystone.close();
    }
  });

  it("keeps a token until shortly before it expires (Keystone's tokens live an hour here)", async () => {
    const keystone = await startRecordingProxy(KS_URL);
    try {
      const client = new CloudKittyClient(
        cloudKittyTarget({
          kind: "keystone",
          authUrl: keystone.url,
          credential: {
            kind: "application-credential",
            id: applicationCredential.id,
            secret: applicationCredential.secret,
          },
        }),
      );
      const tokenRequests = () =>
        keystone.requests.filter((request) => request.url === "/v3/auth/tokens").length;
      await Promise.all([client.listServices(), client.listGroups(), client.listModules()]);
      expect(tokenRequests()).toBe(1);
      const issued = Date.now();
      vi.useFakeTimers({ toFake: ["Date"], now: issued + 50 * 60_000 });
      await client.listServices();
      expect(tokenRequests()).toBe(1);
      vi.setSystemTime(issued + 59.5 * 60_000);
      await client.listServices();
      expect(tokenRequests()).toBe(2);
    } finally {
      vi.useRealTimers();
      await keystone.close();
    }
  });

  it("says Keystone refused the credentials, without repeating them", async () => {
    const wrong = "not-the-password-" + randomUUID();
    const client = new CloudKittyClient(
      cloudKittyTarget({
        kind: "keystone",
        authUrl: KS_URL,
        credential: {
          kind: "password",
          username: "rating-admin",
          password: wrong,
          projectName: "admin",
        },
      }),
    );
    const error = (await client.readRuleSet().catch((e: unknown) => e)) as CloudKittyClientError;
    expect(error).toBeInstanceOf(CloudKittyAuthError);
    expect(error).toMatchObject({ status: 401, stage: "keystone" });
    expect(error.requestId).toMatch(/^req-/);
    expect(inspect(error, { depth: 10 })).not.toContain(wrong);
    const report = await client.probe();
    expect(report).toMatchObject({ reachable: true, auth: "refused" });
    expect(JSON.stringify(report)).not.toContain(wrong);
  });

  it("says Keystone refused an application credential it does not know (its 404)", async () => {
    const client = new CloudKittyClient(
      cloudKittyTarget({
        kind: "keystone",
        authUrl: KS_URL,
        credential: {
          kind: "application-credential",
          id: randomUUID().replaceAll("-", ""),
          secret: applicationCredential.secret,
        },
      }),
    );
    const error = (await client.listServices().catch((e: unknown) => e)) as CloudKittyAuthError;
    expect(error).toBeInstanceOf(CloudKittyAuthError);
    expect(error).toMatchObject({ status: 404, stage: "keystone" });
    expect(error.message).toContain("Could not find Application Credential");
    expect((await client.probe()).auth).toBe("refused");
  });

  it("reports the policy's refusal for a user without the admin role", async () => {
    const client = new CloudKittyClient(
      cloudKittyTarget({
        kind: "keystone",
        authUrl: KS_URL,
        credential: {
          kind: "password",
          username: "demo-reader",
          password: SEED_PASSWORD,
          projectName: "demo",
        },
      }),
    );
    const error = (await client.listServices().catch((e: unknown) => e)) as CloudKittyAuthError;
    expect(error).toBeInstanceOf(CloudKittyAuthError);
    expect(error).toMatchObject({ status: 403, stage: "cloudkitty" });
    expect(error.message).toContain("rating:module_config");
  });

  it("names a missing endpoint when the catalog has none for the region", async () => {
    const client = new CloudKittyClient(
      cloudKittyTarget({
        kind: "keystone",
        authUrl: KS_URL,
        region: "Nowhere",
        credential: {
          kind: "password",
          username: "rating-admin",
          password: SEED_PASSWORD,
          projectName: "admin",
        },
      }),
    );
    const report = await client.probe();
    expect(report).toMatchObject({ auth: "ok", endpoint: undefined, generation: "unknown" });
    expect(report.problem).toContain('no public "rating" endpoint in region Nowhere');
  });
});
