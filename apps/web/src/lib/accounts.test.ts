import { describe, expect, it } from "vitest";
import { cliCommand, tokenStatus } from "./accounts";

describe("tokenStatus", () => {
  const now = Date.parse("2026-11-25T12:00:00Z");
  it("tells revoked, expired and active tokens apart", () => {
    expect(tokenStatus({ expiresAt: "2026-12-01T00:00:00Z", revokedAt: null }, now)).toBe("active");
    expect(tokenStatus({ expiresAt: "2026-11-25T12:00:00Z", revokedAt: null }, now)).toBe(
      "expired",
    );
    expect(
      tokenStatus({ expiresAt: "2026-12-01T00:00:00Z", revokedAt: "2026-11-20T00:00:00Z" }, now),
    ).toBe("revoked");
  });
});

describe("cliCommand", () => {
  it("gives a command that can be pasted into a shell", () => {
    expect(cliCommand("http://127.0.0.1:8889", "rct_abc-DEF_123")).toBe(
      "cloudkitty --os-auth-type admin_token --os-endpoint http://127.0.0.1:8889 --os-token rct_abc-DEF_123 hashmap service list",
    );
    expect(cliCommand("http://host", "it's $x")).toContain(`--os-token 'it'\\''s $x'`);
  });
});
