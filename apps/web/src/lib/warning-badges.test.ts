import { describe, expect, it } from "vitest";
import type { TAcknowledgeableWarning, TWarningAcknowledgement } from "@ratecard/validators";
import {
  acknowledgedBy,
  badgeLabel,
  isAcknowledged,
  splitAcknowledged,
  warningAnchor,
  warningKeyOfAnchor,
  warningBadgeOf,
} from "./warnings";

// Acknowledged warnings and the badges rule lists show: what counts as acknowledged (a reopened
// acknowledgement does not), which warning a row's badge leads to, and which warnings a list asks for.

const S = "11111111-1111-4111-8111-111111111111";
const G = "33333333-3333-4333-8333-333333333333";
const A = "44444444-4444-4444-8444-444444444444";
const B = "55555555-5555-4555-8555-555555555555";

const acknowledgement = (
  patch: Partial<TWarningAcknowledgement> = {},
): TWarningAcknowledgement => ({
  note: "acme's negotiated price",
  user_id: "u1",
  user_name: "admin",
  at: "2026-11-25T21:10:00.000Z",
  revision: 1,
  reopened: false,
  ...patch,
});

let keys = 0;
const warning = (patch: Partial<TAcknowledgeableWarning> = {}): TAcknowledgeableWarning => ({
  code: "tenant-overrides-global",
  message: "engine text",
  service_id: S,
  group_id: null,
  tenant_id: "acme",
  rule_ids: [A, B],
  warning_key: (++keys).toString(16).padStart(64, "0"),
  fingerprint: "f",
  acknowledgement: null,
  ...patch,
});

describe("acknowledged warnings", () => {
  it("counts an acknowledgement only while no rule involved changed", () => {
    expect(isAcknowledged(warning())).toBe(false);
    expect(isAcknowledged(warning({ acknowledgement: acknowledgement() }))).toBe(true);
    expect(isAcknowledged(warning({ acknowledgement: acknowledgement({ reopened: true }) }))).toBe(
      false,
    );
  });

  it("keeps reopened warnings with the open ones, in order", () => {
    const open = warning();
    const reopened = warning({ acknowledgement: acknowledgement({ reopened: true }) });
    const accepted = warning({ acknowledgement: acknowledgement() });
    expect(splitAcknowledged([open, accepted, reopened])).toEqual({
      open: [open, reopened],
      acknowledged: [accepted],
    });
  });

  it("names who acknowledged and when", () => {
    expect(acknowledgedBy(acknowledgement(), "en-GB")).toMatch(/^admin, 25 Nov 2026, \d\d:\d\d$/);
    expect(acknowledgedBy(acknowledgement({ user_name: null }), "en-GB")).toMatch(/^someone, /);
  });

  it("finds the warning an address's #warning-… names", () => {
    const key = "ab".repeat(32);
    expect(warningAnchor(key)).toBe("warning-abababababababab");
    expect(warningKeyOfAnchor("#warning-abababababababab", ["cd".repeat(32), key])).toBe(key);
    expect(warningKeyOfAnchor("#warning-abababababababab", ["cd".repeat(32)])).toBeUndefined();
    expect(warningKeyOfAnchor("", [key])).toBeUndefined();
  });
});

describe("warning badges on rule rows", () => {
  it("says what a badge counts", () => {
    expect(badgeLabel({ open: 1, acknowledged: 0 })).toBe("1 pricing warning");
    expect(badgeLabel({ open: 2, acknowledged: 1 })).toBe("2 pricing warnings, 1 acknowledged");
    expect(badgeLabel({ open: 0, acknowledged: 1 })).toBe("1 acknowledged pricing warning");
    expect(badgeLabel({ open: 0, acknowledged: 3 })).toBe("3 acknowledged pricing warnings");
  });

  it("makes the same badge from the warnings a console.rules row names", () => {
    const reference = (code: string, acknowledged = false) => ({
      warning_key: code.padEnd(64, "0"),
      code,
      service_id: S,
      group_id: G,
      acknowledged,
    });
    const override = reference("tenant-overrides-global");
    const zero = reference("rate-without-flat");
    const accepted = reference("flats-do-not-add", true);
    expect(warningBadgeOf([override, accepted, zero])).toEqual({
      open: 2,
      acknowledged: 1,
      target: zero,
      codes: ["rate-without-flat", "tenant-overrides-global", "flats-do-not-add"],
    });
    expect(warningBadgeOf([accepted])).toMatchObject({
      open: 0,
      acknowledged: 1,
      target: accepted,
    });
    expect(warningBadgeOf([])).toBeUndefined();
    expect(warningBadgeOf(undefined)).toBeUndefined();
  });
});
