import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  CloudKittyClient,
  CloudKittyUnreachableError,
  cloudKittyTarget,
  describeTarget,
  type CloudKittyTargetInput,
  type KeystoneTarget,
} from "../src/index.js";

const keystoneTarget = (input: CloudKittyTargetInput) => cloudKittyTarget(input) as KeystoneTarget;

const PASSWORD = "s3cr3t-password-value";
const APP_SECRET = "app-credential-secret-value";

describe("targets", () => {
  const password = keystoneTarget({
    kind: "keystone",
    authUrl: "http://127.0.0.1:9/v3/",
    credential: {
      kind: "password",
      username: "rating-admin",
      password: PASSWORD,
      projectName: "admin",
    },
  });
  const application = keystoneTarget({
    kind: "keystone",
    authUrl: "http://127.0.0.1:9",
    region: "RegionOne",
    credential: { kind: "application-credential", id: "a1b2", secret: APP_SECRET },
  });

  it("fills the defaults: public interface, Default domains, no trailing slash", () => {
    expect(password).toMatchObject({
      authUrl: "http://127.0.0.1:9/v3",
      interface: "public",
      region: undefined,
      credential: { userDomainName: "Default", projectDomainName: "Default" },
    });
    expect(cloudKittyTarget({ kind: "noauth", url: "http://ck:8889/" })).toEqual({
      kind: "noauth",
      url: "http://ck:8889",
    });
  });

  it("never shows a secret in JSON, strings, inspect or descriptions", () => {
    for (const target of [password, application]) {
      const renderings = [
        JSON.stringify(target),
        String(
          target.credential.kind === "password"
            ? target.credential.password
            : target.credential.secret,
        ),
        `${JSON.stringify({ target })}`,
        inspect(target, { depth: 10 }),
        describeTarget(target),
      ];
      for (const text of renderings) {
        expect(text).not.toContain(PASSWORD);
        expect(text).not.toContain(APP_SECRET);
      }
    }
    expect(JSON.stringify(password)).toContain('"password":"[redacted]"');
    expect(describeTarget(application)).toBe(
      "rating endpoint (public, RegionOne) of http://127.0.0.1:9 as application credential a1b2",
    );
  });

  it("keeps secrets out of errors and probe reports", async () => {
    const client = new CloudKittyClient(password, { timeoutMs: 2000 });
    expect(inspect(client, { depth: 10 })).not.toContain(PASSWORD);
    expect(JSON.stringify(client)).not.toContain(PASSWORD);
    const error = await client.readRuleSet().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudKittyUnreachableError);
    expect((error as Error).message).toContain("POST http://127.0.0.1:9/v3/auth/tokens");
    expect(inspect(error, { depth: 10 })).not.toContain(PASSWORD);
    const report = await client.probe();
    expect(report).toMatchObject({ reachable: false, auth: "unknown" });
    expect(JSON.stringify(report)).not.toContain(PASSWORD);
  });

  it("refuses malformed targets", () => {
    expect(() => cloudKittyTarget({ kind: "noauth", url: "ftp://ck" })).toThrow();
    expect(() =>
      cloudKittyTarget({
        kind: "keystone",
        authUrl: "http://ks:5000",
        credential: { kind: "password", username: "u", password: "", projectName: "p" },
      }),
    ).toThrow();
  });
});
