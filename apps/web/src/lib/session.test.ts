import { describe, expect, it } from "vitest";
import {
  credentialsFor,
  describeRoles,
  describeSignInFailure,
  formatWait,
  retryAfterSeconds,
  signInRequirementsFor,
  type Session,
} from "./session";

const NOW = Date.parse("2026-11-25T12:00:00Z");

describe("describeSignInFailure", () => {
  it("passes on the server's words for wrong credentials", () => {
    const body = { faultcode: "Client", faultstring: "The username or password is incorrect." };
    expect(describeSignInFailure(401, body, null)).toBe("The username or password is incorrect.");
  });

  it("says how long to wait when rate limited, from seconds or a date", () => {
    expect(describeSignInFailure(429, {}, "30", NOW)).toBe(
      "Too many sign-in attempts. Try again in 30 seconds.",
    );
    expect(describeSignInFailure(429, {}, "Wed, 25 Nov 2026 12:02:00 GMT", NOW)).toBe(
      "Too many sign-in attempts. Try again in 2 minutes.",
    );
    expect(describeSignInFailure(429, {}, null, NOW)).toBe(
      "Too many sign-in attempts. Wait a little, then try again.",
    );
  });

  it("blames the identity service, not the user, when Keystone is unreachable", () => {
    expect(describeSignInFailure(503, { faultstring: "ECONNREFUSED" }, null)).toMatch(
      /identity service \(Keystone\) cannot be reached/,
    );
  });

  it("names the status of anything else", () => {
    expect(describeSignInFailure(500, "oops", null)).toBe(
      "Signing in failed (HTTP 500). Try again; if it lasts, check the server log.",
    );
    expect(describeSignInFailure(403, { faultstring: "Forbidden origin" }, null)).toBe(
      "Signing in failed: Forbidden origin",
    );
  });
});

describe("retryAfterSeconds and formatWait", () => {
  it("reads both forms of Retry-After and ignores garbage", () => {
    expect(retryAfterSeconds("12", NOW)).toBe(12);
    expect(retryAfterSeconds("Wed, 25 Nov 2026 12:00:05 GMT", NOW)).toBe(5);
    expect(retryAfterSeconds("Wed, 25 Nov 2026 11:00:00 GMT", NOW)).toBe(0);
    expect(retryAfterSeconds("soon", NOW)).toBeNull();
    expect(retryAfterSeconds(null, NOW)).toBeNull();
  });

  it("rounds up, and never says zero", () => {
    expect(formatWait(0)).toBe("1 second");
    expect(formatWait(1)).toBe("1 second");
    expect(formatWait(59)).toBe("59 seconds");
    expect(formatWait(60)).toBe("1 minute");
    expect(formatWait(61)).toBe("2 minutes");
  });
});

describe("credentialsFor", () => {
  const values = { username: " alice ", password: " pw ", project: " demo ", domain: "" };

  it("sends only username and password to the local strategy", () => {
    expect(credentialsFor(signInRequirementsFor("local"), values)).toEqual({
      username: "alice",
      password: " pw ",
    });
  });

  it("sends project and the default domain to Keystone", () => {
    expect(credentialsFor(signInRequirementsFor("keystone"), values)).toEqual({
      username: "alice",
      password: " pw ",
      project: "demo",
      domain: "Default",
    });
  });
});

describe("describeRoles", () => {
  const session = (roles: string[]): Session => ({
    strategy: "keystone",
    user: { id: "u", name: "alice", projectId: "p", projectName: "demo", roles },
    expiresAt: null,
    csrfToken: "t",
    can: {
      writeRules: false,
      updateModules: false,
      manageAccounts: false,
      preview: true,
      readAudit: false,
      seeWarnings: true,
      acknowledgeWarnings: false,
      manageTargets: false,
    },
  });

  it("shows admin alone, else every role", () => {
    expect(describeRoles(session(["reader", "member", "admin"]))).toBe("admin");
    expect(describeRoles(session(["reader", "member"]))).toBe("reader, member");
    expect(describeRoles(session([]))).toBe("no role");
  });
});
