import { describe, expect, it } from "vitest";
import {
  countOf,
  fieldDeletionText,
  groupDeletionText,
  joinWithAnd,
  serviceDeletionText,
} from "./impact";

describe("deletion texts", () => {
  it("counts in words with the right plural", () => {
    expect(countOf(1, "field")).toBe("1 field");
    expect(countOf(0, "mapping")).toBe("0 mappings");
    expect(countOf(10000, "mapping")).toBe("10,000 mappings");
    expect(joinWithAnd(["a", "b", "c"])).toBe("a, b and c");
    expect(joinWithAnd(["a"])).toBe("a");
  });

  it("names the service and what goes with it", () => {
    expect(serviceDeletionText("volume.size", { fields: 2, mappings: 7, thresholds: 3 })).toMatch(
      /^Deleting service “volume\.size” also deletes 2 fields, 7 mappings and 3 thresholds\./,
    );
    expect(serviceDeletionText("empty", { fields: 0, mappings: 0, thresholds: 0 })).toBe(
      "Service “empty” has no fields, mappings or thresholds. Only the service is deleted.",
    );
  });

  it("names the field and its rules", () => {
    expect(fieldDeletionText("flavor_id", { mappings: 1, thresholds: 0 })).toBe(
      "Deleting field “flavor_id” also deletes its 1 mapping and 0 thresholds.",
    );
  });

  it("explains both ways of deleting a group", () => {
    const counts = { mappings: 3, thresholds: 1 };
    expect(groupDeletionText("discounts", counts, "delete-rules")).toBe(
      "Deleting group “discounts” also deletes its 3 mappings and 1 threshold.",
    );
    const keep = groupDeletionText("discounts", counts, "keep-rules");
    expect(keep).toContain("move to no group");
    expect(keep).toContain("change prices");
  });
});
