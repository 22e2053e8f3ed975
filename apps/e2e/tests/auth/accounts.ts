import {
  expect,
  request as playwrightRequest,
  type APIRequestContext,
  type Page,
} from "@playwright/test";

// Signing in as a user would (through the page) and as a script would (POST /auth/login from a
// separate client), and the console's RPC with the session's CSRF token, to seed and check data.

/** The first admin's password, given to the local-accounts server through RATECARD_ADMIN_PASSWORD. */
export const ADMIN_PASSWORD = "e2e-admin-password-1";
/** SESSION_TTL_SECONDS of the server where sessions expire mid-journey. */
export const SHORT_SESSION_SECONDS = 4;
export const KEYSTONE_URL = process.env.KEYSTONE_URL ?? "http://127.0.0.1:5000";

export interface Credentials {
  username: string;
  password: string;
  project?: string;
  domain?: string;
}

export async function signInThroughPage(page: Page, credentials: Credentials) {
  await page.getByLabel("Username").fill(credentials.username);
  await page.getByLabel("Password").fill(credentials.password);
  if (credentials.project !== undefined) await page.getByLabel("Project").fill(credentials.project);
  if (credentials.domain !== undefined) await page.getByLabel("Domain").fill(credentials.domain);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** A client of its own (its own cookie jar) signed in as `credentials`. */
export async function apiSession(baseURL: string, credentials: Credentials) {
  const request = await playwrightRequest.newContext({ baseURL });
  const response = await request.post("/auth/login", { data: credentials });
  expect(response.status(), await response.text()).toBe(200);
  const { csrfToken } = (await response.json()) as { csrfToken: string };
  return new RpcClient(request, csrfToken);
}

export class RpcClient {
  constructor(
    readonly request: APIRequestContext,
    readonly csrfToken: string,
  ) {}

  async mutation<T>(path: string, input: unknown): Promise<T> {
    const response = await this.request.post(`/trpc/${path}`, {
      data: input,
      headers: { "x-csrf-token": this.csrfToken },
    });
    expect(response.ok(), `${path}: ${response.status()} ${await response.text()}`).toBe(true);
    return ((await response.json()) as { result: { data: T } }).result.data;
  }

  async query<T>(path: string, input?: unknown): Promise<T> {
    const query = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`;
    const response = await this.request.get(`/trpc/${path}${query}`);
    expect(response.ok(), `${path}: ${response.status()} ${await response.text()}`).toBe(true);
    return ((await response.json()) as { result: { data: T } }).result.data;
  }

  dispose() {
    return this.request.dispose();
  }
}

/**
 * Ends the page's session on the server, as an expiry or a revocation would, without the page
 * knowing: another client signs the same session out with its cookie and CSRF token.
 */
export async function endSessionBehindThePage(page: Page, baseURL: string) {
  const cookies = await page.context().cookies(baseURL);
  const session = cookies.find((cookie) => cookie.name === "ratecard_session");
  expect(session, "the page holds a session cookie").toBeDefined();
  const other = await playwrightRequest.newContext({
    baseURL,
    extraHTTPHeaders: { cookie: `ratecard_session=${session!.value}` },
  });
  const current = await other.get("/auth/session");
  expect(current.status()).toBe(200);
  const { csrfToken } = (await current.json()) as { csrfToken: string };
  const logout = await other.post("/auth/logout", { headers: { "x-csrf-token": csrfToken } });
  expect(logout.status()).toBe(204);
  expect((await other.get("/auth/session")).status()).toBe(401);
  await other.dispose();
}
