import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP } from "./support/client.js";
import { startServer, type TestServer } from "./support/server.js";

// X-Forwarded-* are believed only from TRUSTED_PROXIES: the Location of a created object, the
// session cookie's Secure flag and the client address that failed attempts are counted by.

const ADMIN_PASSWORD = "a password long enough";
const PROXY_HEADERS = {
  "X-Forwarded-Proto": "https",
  "X-Forwarded-Host": "rating.example.com",
};

function failedLogin(server: TestServer, forwardedFor: string) {
  return fetch(`${server.baseUrl}/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": forwardedFor },
    body: JSON.stringify({ username: "admin", password: "wrong" }),
  });
}

const SETUPS: { trusted: boolean; env: Record<string, string> }[] = [
  { trusted: true, env: { TRUSTED_PROXIES: "loopback" } },
  { trusted: false, env: {} },
];

describe.each(SETUPS)("behind a proxy (trusted: $trusted)", ({ trusted, env }) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      env: {
        AUTH_STRATEGY: "local",
        RATECARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
        LOGIN_ATTEMPTS_PER_MINUTE: "2",
        ...env,
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("builds the Location of a created object from the origin the client used", async () => {
    const login = await fetch(`${server.baseUrl}/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...PROXY_HEADERS },
      body: JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.get("set-cookie") ?? "";
    expect(/;\s*Secure/i.test(cookie)).toBe(trusted);
    const token = /ratecard_session=([^;]+)/.exec(cookie)![1]!;
    const made = await createClient(server.baseUrl).post(
      `${HASHMAP}/services`,
      { name: `behind-proxy-${trusted}` },
      { headers: { "X-Auth-Token": token, ...PROXY_HEADERS } },
    );
    expect(made.status).toBe(201);
    const origin = trusted ? "https://rating.example.com" : server.baseUrl;
    expect(made.headers.get("location")).toBe(
      `${origin}${HASHMAP}/services/${made.body.service_id}`,
    );
  });

  it("counts failed attempts per forwarded client only when the proxy is trusted", async () => {
    expect((await failedLogin(server, "192.0.2.1")).status).toBe(401);
    expect((await failedLogin(server, "192.0.2.1")).status).toBe(401);
    expect((await failedLogin(server, "192.0.2.1")).status).toBe(429);
    // Another client behind the same proxy: its own budget, unless the header is not believed.
    expect((await failedLogin(server, "192.0.2.2")).status).toBe(trusted ? 401 : 429);
  });
});
