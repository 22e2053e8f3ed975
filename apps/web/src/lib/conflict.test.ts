import { describe, expect, it } from "vitest";
import {
  conflictOf,
  describeChange,
  diffValues,
  isConflict,
  parseConflict,
  withAuditEvent,
} from "./conflict";

const MESSAGE =
  "Mapping 5b0c was changed since it was read: it is at revision 3, not revision 2 (last changed by alice at 2026-11-25T18:02:11.512Z). Read it again and reapply the change.";

describe("conflicts", () => {
  it("recognises a 412 by its code or status only", () => {
    expect(isConflict({ data: { code: "PRECONDITION_FAILED" } })).toBe(true);
    expect(isConflict({ data: { httpStatus: 412 } })).toBe(true);
    expect(isConflict({ data: { code: "CONFLICT", httpStatus: 409 } })).toBe(false);
    expect(isConflict(new Error("x"))).toBe(false);
    expect(isConflict(null)).toBe(false);
  });

  it("reads the revision, author and moment out of the message", () => {
    expect(parseConflict(MESSAGE)).toEqual({
      message: MESSAGE,
      currentRevision: 3,
      changedBy: "alice",
      changedAt: "2026-11-25T18:02:11.512Z",
    });
    expect(conflictOf({ message: MESSAGE }).changedBy).toBe("alice");
    const anonymous = parseConflict(
      "Script s was changed since it was read: it is at revision 7, not revision 1 (last changed at 2026-11-25T18:02:11.512Z).",
    );
    expect(anonymous).toMatchObject({
      currentRevision: 7,
      changedBy: null,
      changedAt: "2026-11-25T18:02:11.512Z",
    });
    expect(parseConflict("something else")).toMatchObject({
      currentRevision: null,
      changedBy: null,
      changedAt: null,
    });
  });

  it("prefers the audit trail's latest event", () => {
    const conflict = withAuditEvent(parseConflict(MESSAGE), {
      at: "2026-11-25T19:00:00.000Z",
      user_name: "bob",
      user_id: "u2",
    });
    expect(conflict).toMatchObject({ changedBy: "bob", changedAt: "2026-11-25T19:00:00.000Z" });
    expect(withAuditEvent(parseConflict(MESSAGE), undefined).changedBy).toBe("alice");
  });

  it("says who and when in words", () => {
    expect(describeChange(parseConflict(MESSAGE))).toMatch(/^Changed by alice at .+\.$/);
    expect(describeChange(parseConflict("x"))).toBe("Changed by someone else since you opened it.");
  });

  it("lists the labelled fields that differ, in order", () => {
    const server = { cost: "1", tenant_id: "acme", type: "flat", parent: "service:s" };
    const mine = { cost: "2", tenant_id: "", type: "flat", parent: "service:s" };
    expect(diffValues(server, mine, { tenant_id: "Tenant", cost: "Cost", type: "Type" })).toEqual([
      { label: "Tenant", server: "acme", mine: "(none)" },
      { label: "Cost", server: "1", mine: "2" },
    ]);
  });
});
