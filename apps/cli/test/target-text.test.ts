import { describe, expect, it } from "vitest";
import { changeCount } from "../src/target-text.js";

// `ratecard targets plan` exits 2 when changeCount > 0: a plan whose only changes are CloudKitty
// 23+ supersedes must count, and frozen (refused by CloudKitty, never applied) must not.
const plan = (counts: Record<string, number>) =>
  ({ counts }) as unknown as Parameters<typeof changeCount>[0];

describe("changeCount", () => {
  it("counts a supersede as a change", () => {
    expect(changeCount(plan({ supersede: 1 }))).toBe(1);
  });

  it("does not count what apply only reports", () => {
    expect(changeCount(plan({ unmanaged: 2, duplicate: 1, frozen: 3 }))).toBe(0);
  });

  it("adds every changing operation", () => {
    expect(
      changeCount(
        plan({ create: 1, update: 2, replace: 3, supersede: 4, delete: 5, module: 6, frozen: 7 }),
      ),
    ).toBe(21);
  });
});
