import { describe, expect, it } from "vitest";
import { formatTarget, type Target } from "../src/target-text.js";

// `ratecard targets show` names the apply under way on the target (its lease), so that an operator
// who is refused an apply sees who holds the target without reading the 409.
const target: Target = {
  target_id: "0b6a1c52-0000-4000-8000-000000000000",
  name: "prod",
  mode: "managed",
  prune: false,
  connection: { kind: "noauth", url: "http://ck:8889" },
  has_secret: false,
  created_at: "2026-11-26T02:00:00.000Z",
  updated_at: "2026-11-26T02:00:00.000Z",
  last_probe: null,
  last_import: null,
};

describe("formatTarget", () => {
  it("prints the apply under way", () => {
    const text = formatTarget({
      ...target,
      apply_in_progress: {
        since: "2026-11-26T03:00:00.000Z",
        until: "2026-11-26T03:01:15.000Z",
        actor: "admin",
        plan_id: "6f0c2a9e-0000-4000-8000-000000000000",
        instance: "ratecard-2 pid 4181",
      },
    });
    expect(text).toContain(
      "applying:     since 2026-11-26T03:00:00.000Z by admin on ratecard-2 pid 4181 " +
        "(plan 6f0c2a9e-0000-4000-8000-000000000000); its lease lapses at " +
        "2026-11-26T03:01:15.000Z unless renewed. Another apply is refused until it ends.\n",
    );
  });

  it("says no apply is under way, and nothing for a server that does not say", () => {
    expect(formatTarget({ ...target, apply_in_progress: null })).toContain("applying:     no\n");
    expect(formatTarget(target)).not.toContain("applying:");
  });
});
