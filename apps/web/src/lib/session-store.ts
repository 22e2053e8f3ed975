import {
  describeSignInFailure,
  UNREACHABLE_SERVER,
  ZSession,
  ZSignInRequired,
  signInRequirementsFor,
  type Credentials,
  type Session,
  type SignInRequirements,
} from "./session";

export type SessionState =
  | { status: "loading" }
  | { status: "unreachable"; message: string }
  | { status: "signedOut"; requirements: SignInRequirements; notice: string | null }
  /** `ended`: the server stopped accepting the session mid-use; requests wait for a new sign-in. */
  | { status: "signedIn"; session: Session; ended: boolean };

export type Outcome = { ok: true } | { ok: false; message: string };

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

async function readJson(response: Response): Promise<unknown> {
  try {
    return (await response.json()) as unknown;
  } catch {
    return null;
  }
}

/**
 * The console's session, outside React so that the tRPC client can read the CSRF token and hold
 * requests that met an ended session until the user has signed in again.
 */
export class SessionStore {
  #state: SessionState = { status: "loading" };
  readonly #listeners = new Set<() => void>();
  /** Requests waiting for a sign-in: told true to retry, false to give up (the user signed out). */
  #waiters: ((retry: boolean) => void)[] = [];
  #generation = 0;
  readonly #fetch: Fetch;

  constructor(fetchImpl: Fetch = (input, init) => fetch(input, init)) {
    this.#fetch = fetchImpl;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  readonly getState = (): SessionState => this.#state;

  get csrfToken(): string | undefined {
    return this.#state.status === "signedIn" ? this.#state.session.csrfToken : undefined;
  }

  /** Counts sign-ins: a refusal of a request sent before the latest sign-in says nothing about it. */
  get generation(): number {
    return this.#generation;
  }

  #set(state: SessionState): void {
    this.#state = state;
    for (const listener of this.#listeners) listener();
  }

  #release(retry: boolean): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter(retry);
  }

  #signedIn(session: Session): void {
    this.#generation += 1;
    this.#set({ status: "signedIn", session, ended: false });
    this.#release(true);
  }

  /** Asks the server who we are: the console, the sign-in page, or why neither. */
  async load(notice: string | null = null): Promise<void> {
    let response: Response;
    try {
      response = await this.#fetch("/auth/session", { headers: { accept: "application/json" } });
    } catch {
      this.#set({ status: "unreachable", message: UNREACHABLE_SERVER });
      return;
    }
    const body = await readJson(response);
    if (response.ok) {
      const session = ZSession.safeParse(body);
      if (session.success) {
        this.#signedIn(session.data);
        return;
      }
    } else if (response.status === 401) {
      const required = ZSignInRequired.safeParse(body);
      this.#set({
        status: "signedOut",
        requirements: required.success ? required.data : signInRequirementsFor("local"),
        notice,
      });
      return;
    }
    this.#set({
      status: "unreachable",
      message: `The server answered GET /auth/session with HTTP ${response.status}, which the console does not understand. Check that the console and the server are the same version.`,
    });
  }

  async signIn(credentials: Credentials): Promise<Outcome> {
    let response: Response;
    try {
      response = await this.#fetch("/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(credentials),
      });
    } catch {
      return { ok: false, message: UNREACHABLE_SERVER };
    }
    const body = await readJson(response);
    if (!response.ok) {
      return {
        ok: false,
        message: describeSignInFailure(response.status, body, response.headers.get("retry-after")),
      };
    }
    const session = ZSession.safeParse(body);
    if (!session.success) {
      return { ok: false, message: "The server's answer to the sign-in was not understood." };
    }
    this.#signedIn(session.data);
    return { ok: true };
  }

  /** Ends the session on the server; the page then shows the sign-in form. */
  async signOut(): Promise<Outcome> {
    const csrfToken = this.csrfToken;
    let response: Response;
    try {
      response = await this.#fetch("/auth/logout", {
        method: "POST",
        headers: csrfToken ? { "x-csrf-token": csrfToken } : {},
      });
    } catch {
      return { ok: false, message: `Signing out failed. ${UNREACHABLE_SERVER}` };
    }
    // 401: the session had already ended, which is what signing out wants.
    if (!response.ok && response.status !== 401) {
      return {
        ok: false,
        message: `Signing out failed (HTTP ${response.status}); you are still signed in.`,
      };
    }
    this.#release(false);
    await this.load("You have signed out.");
    return { ok: true };
  }

  /**
   * A request sent during sign-in `generation` was refused as unauthenticated. Resolves true when
   * the request should be sent again (the user has signed in since), false when it should fail.
   */
  sessionEnded(generation: number): Promise<boolean> {
    if (generation !== this.#generation) return Promise.resolve(true);
    const state = this.#state;
    if (state.status !== "signedIn") return Promise.resolve(false);
    if (!state.ended) this.#set({ ...state, ended: true });
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
