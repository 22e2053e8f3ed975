import { describe, expect, it } from "vitest";
import { SessionStore } from "./session-store";

// The store against scripted server answers: which screen each answer leads to, and what happens to
// requests that met an ended session. The real server is exercised by the Playwright journeys.

const SESSION = {
  strategy: "local",
  user: { id: "u1", name: "admin", projectId: null, projectName: null, roles: ["admin"] },
  expiresAt: null,
  csrfToken: "csrf-1",
  can: {
    writeRules: true,
    updateModules: true,
    manageAccounts: true,
    preview: true,
    readAudit: true,
    seeWarnings: true,
    acknowledgeWarnings: true,
    manageTargets: true,
  },
};
const SIGNED_OUT = {
  strategy: "local",
  signIn: { fields: ["username", "password"] },
  faultcode: "Client",
  faultstring: "Authentication required",
};

interface Call {
  url: string;
  init: RequestInit | undefined;
}

function scriptedServer(answers: (() => Response)[]) {
  const calls: Call[] = [];
  const fetchImpl = (url: string, init?: RequestInit) => {
    calls.push({ url, init });
    const answer = answers.shift();
    if (!answer) throw new Error(`unexpected request ${url}`);
    return Promise.resolve(answer());
  };
  return { calls, store: new SessionStore(fetchImpl) };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });

describe("SessionStore", () => {
  it("opens the console for a valid session and gives its CSRF token", async () => {
    const { store } = scriptedServer([json(200, SESSION)]);
    await store.load();
    expect(store.getState()).toMatchObject({ status: "signedIn", ended: false });
    expect(store.csrfToken).toBe("csrf-1");
  });

  it("shows the sign-in form the server asks for", async () => {
    const { store } = scriptedServer([
      json(401, {
        ...SIGNED_OUT,
        strategy: "keystone",
        signIn: { fields: ["username", "password", "project", "domain"], defaultDomain: "Default" },
      }),
    ]);
    await store.load();
    expect(store.getState()).toEqual({
      status: "signedOut",
      notice: null,
      requirements: {
        strategy: "keystone",
        signIn: { fields: ["username", "password", "project", "domain"], defaultDomain: "Default" },
      },
    });
    expect(store.csrfToken).toBeUndefined();
  });

  it("says the server is unreachable when the request fails", async () => {
    const store = new SessionStore(() => Promise.reject(new TypeError("Failed to fetch")));
    await store.load();
    expect(store.getState()).toMatchObject({ status: "unreachable" });
  });

  it("signs in with JSON and reports refusals in words", async () => {
    const { store, calls } = scriptedServer([
      json(401, SIGNED_OUT),
      json(401, { faultcode: "Client", faultstring: "The username or password is incorrect." }),
      json(429, { faultcode: "Client", faultstring: "Too many" }, { "retry-after": "42" }),
      json(200, SESSION),
    ]);
    await store.load();
    const credentials = { username: "admin", password: "wrong" };
    expect(await store.signIn(credentials)).toEqual({
      ok: false,
      message: "The username or password is incorrect.",
    });
    expect(await store.signIn(credentials)).toEqual({
      ok: false,
      message: "Too many sign-in attempts. Try again in 42 seconds.",
    });
    expect(await store.signIn({ username: "admin", password: "right" })).toEqual({ ok: true });
    expect(store.getState()).toMatchObject({ status: "signedIn" });
    expect(calls[3]).toEqual({
      url: "/auth/login",
      init: expect.objectContaining({
        method: "POST",
        body: JSON.stringify({ username: "admin", password: "right" }),
      }) as RequestInit,
    });
  });

  it("holds requests that met an ended session until the user signs in again", async () => {
    const { store } = scriptedServer([
      json(200, SESSION),
      json(200, { ...SESSION, csrfToken: "csrf-2" }),
    ]);
    await store.load();
    const generation = store.generation;
    const first = store.sessionEnded(generation);
    const second = store.sessionEnded(generation);
    expect(store.getState()).toMatchObject({ status: "signedIn", ended: true });

    await store.signIn({ username: "admin", password: "pw" });
    await expect(Promise.all([first, second])).resolves.toEqual([true, true]);
    expect(store.getState()).toMatchObject({ status: "signedIn", ended: false });
    expect(store.csrfToken).toBe("csrf-2");
    // A refusal of a request sent before that sign-in is retried at once, without a new dialog.
    await expect(store.sessionEnded(generation)).resolves.toBe(true);
    expect(store.getState()).toMatchObject({ ended: false });
  });

  it("signs out with the CSRF token, then lets waiting requests fail", async () => {
    const { store, calls } = scriptedServer([
      json(200, SESSION),
      () => new Response(null, { status: 204 }),
      json(401, SIGNED_OUT),
    ]);
    await store.load();
    const waiting = store.sessionEnded(store.generation);
    expect(await store.signOut()).toEqual({ ok: true });
    await expect(waiting).resolves.toBe(false);
    expect(calls[1]?.url).toBe("/auth/logout");
    expect(calls[1]?.init?.headers).toEqual({ "x-csrf-token": "csrf-1" });
    expect(store.getState()).toMatchObject({ status: "signedOut", notice: "You have signed out." });
  });

  it("stays signed in when signing out fails", async () => {
    const { store } = scriptedServer([json(200, SESSION), json(500, {})]);
    await store.load();
    expect(await store.signOut()).toEqual({
      ok: false,
      message: "Signing out failed (HTTP 500); you are still signed in.",
    });
    expect(store.getState()).toMatchObject({ status: "signedIn" });
  });

  it("tells listeners about every change", async () => {
    const { store } = scriptedServer([json(200, SESSION)]);
    const seen: string[] = [];
    const unsubscribe = store.subscribe(() => seen.push(store.getState().status));
    await store.load();
    void store.sessionEnded(store.generation);
    unsubscribe();
    expect(seen).toEqual(["signedIn", "signedIn"]);
  });
});
