import {
  CloudKittyAuthError,
  CloudKittyCatalogError,
  CloudKittyUnexpectedStatusError,
} from "./errors.js";
import { exchange, readAnswer, tryParseJson } from "./http.js";
import { ZKeystoneToken } from "./schemas.js";
import { Secret } from "./secret.js";
import type { KeystoneTarget } from "./target.js";

interface SessionState {
  token: Secret;
  /** Refetch from this time on (shortly before the token expires). */
  renewAt: number;
  endpoint: string;
}

/** Refetch a token this long before it expires (a quarter of its life if that is shorter). */
const RENEW_MARGIN_MS = 60_000;

/**
 * A Keystone session for one target: a token from POST /v3/auth/tokens (application credential,
 * or password scoped to a project), the `rating` endpoint from its catalog, both kept until
 * shortly before the token expires. Concurrent callers share one token request.
 */
export class KeystoneSession {
  readonly #target: KeystoneTarget;
  readonly #timeoutMs: number;
  #state: SessionState | undefined;
  #pending: Promise<SessionState> | undefined;

  constructor(target: KeystoneTarget, timeoutMs: number) {
    this.#target = target;
    this.#timeoutMs = timeoutMs;
  }

  /** A valid token and the rating endpoint, fetching a token when none is cached or it is old. */
  async current(): Promise<{ token: Secret; endpoint: string }> {
    const state = this.#state;
    if (state && Date.now() < state.renewAt) return state;
    this.#pending ??= this.#authenticate().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** Forgets `token` (CloudKitty refused it): the next current() asks Keystone again. */
  invalidate(token: Secret): void {
    if (this.#state?.token === token) this.#state = undefined;
  }

  async #authenticate(): Promise<SessionState> {
    const base = this.#target.authUrl.replace(/\/v3$/, "");
    const answer = await exchange({
      method: "POST",
      url: `${base}/v3/auth/tokens`,
      body: this.#authBody(),
      timeoutMs: this.#timeoutMs,
    });
    // Keystone answers 404 in its own error shape for an application credential it does not know
    // (deleted, or a mistyped id): the credentials are refused as surely as with a 401. A 404
    // without that shape is another server at authUrl, left to the unexpected-status error.
    const notFound = answer.status === 404 ? keystoneMessage(answer.text) : undefined;
    if (answer.status === 401 || answer.status === 403 || notFound !== undefined) {
      throw new CloudKittyAuthError(
        answer.context,
        answer.status,
        "keystone",
        notFound ?? keystoneMessage(answer.text) ?? "credentials refused",
      );
    }
    if (answer.status !== 201 && answer.status !== 200) {
      throw new CloudKittyUnexpectedStatusError(
        answer.context,
        answer.status,
        keystoneMessage(answer.text) ?? "",
      );
    }
    const subjectToken = answer.headers.get("x-subject-token");
    if (!subjectToken) {
      throw new CloudKittyUnexpectedStatusError(
        answer.context,
        answer.status,
        "no X-Subject-Token in Keystone's answer",
      );
    }
    const body = readAnswer(answer, ZKeystoneToken);
    const now = Date.now();
    const expiresAt = Date.parse(body.token.expires_at);
    const margin = Math.min(RENEW_MARGIN_MS, Math.max(0, (expiresAt - now) / 4));
    const state: SessionState = {
      token: new Secret(subjectToken),
      renewAt: expiresAt - margin,
      endpoint: this.#ratingEndpoint(body.token.catalog, answer.context),
    };
    this.#state = state;
    return state;
  }

  #authBody(): unknown {
    const credential = this.#target.credential;
    if (credential.kind === "application-credential") {
      // An application credential is scoped to its project already: no scope may be given.
      return {
        auth: {
          identity: {
            methods: ["application_credential"],
            application_credential: { id: credential.id, secret: credential.secret.reveal() },
          },
        },
      };
    }
    return {
      auth: {
        identity: {
          methods: ["password"],
          password: {
            user: {
              name: credential.username,
              domain: { name: credential.userDomainName },
              password: credential.password.reveal(),
            },
          },
        },
        scope: {
          project: { name: credential.projectName, domain: { name: credential.projectDomainName } },
        },
      },
    };
  }

  #ratingEndpoint(
    catalog: {
      type: string;
      endpoints: {
        interface: string;
        region?: string | null | undefined;
        region_id?: string | null | undefined;
        url: string;
      }[];
    }[],
    context: { method: string; url: string; requestId?: string | undefined },
  ): string {
    const { region, interface: wanted } = this.#target;
    const candidates = catalog
      .filter((service) => service.type === "rating")
      .flatMap((service) => service.endpoints)
      .filter((endpoint) => endpoint.interface === wanted)
      .filter((endpoint) => !region || endpoint.region_id === region || endpoint.region === region);
    const urls = [...new Set(candidates.map((endpoint) => endpoint.url.replace(/\/+$/, "")))];
    if (urls.length === 0) {
      throw new CloudKittyCatalogError(
        context,
        `the token's catalog has no ${wanted} "rating" endpoint${region ? ` in region ${region}` : ""}`,
      );
    }
    if (urls.length > 1) {
      throw new CloudKittyCatalogError(
        context,
        `the token's catalog has ${urls.length} ${wanted} "rating" endpoints (${urls.join(", ")}): name the region`,
      );
    }
    return urls[0]!;
  }
}

/** Keystone's `{"error": {"message"}}`, which never echoes the credentials. */
function keystoneMessage(text: string): string | undefined {
  const body = tryParseJson(text) as { error?: { message?: unknown } } | undefined;
  const message = body?.error?.message;
  return typeof message === "string" ? message : undefined;
}
