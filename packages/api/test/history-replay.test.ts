import { describe, expect, it } from "vitest";
import {
  emptyState,
  exclusionAt,
  inLoadOrder,
  intervalOf,
  lifecycleBoundaries,
  unwindEvents,
  type ReplayEvent,
  type ReplayObject,
  type ReplayState,
} from "../src/domain/history-replay.js";

// The replay alone, on plain objects: each kind of event undone, and load order restored. The HTTP
// test (apps/server/test/pricing-at-a-moment.test.ts) proves it against a real trail.

const mapping = (id: string, cost: string, extra: Record<string, unknown> = {}): ReplayObject => ({
  mapping_id: id,
  value: null,
  type: "flat",
  cost,
  service_id: "s1",
  field_id: null,
  group_id: null,
  tenant_id: null,
  ...extra,
});

function stateWith(entries: [string, number, ReplayObject][]): ReplayState {
  const state = emptyState();
  for (const [id, order, object] of entries) state.mapping.set(id, { order, object });
  return state;
}

const event = (partial: Partial<ReplayEvent> & Pick<ReplayEvent, "seq" | "operation">) => ({
  resourceType: "mapping",
  resourceId: "m1",
  before: null,
  after: null,
  cascade: null,
  ...partial,
});

const costs = (state: ReplayState) => inLoadOrder(state.mapping).map((object) => object.cost);

describe("unwindEvents", () => {
  it("removes what was created, puts back what was updated, restores what was deleted", () => {
    const state = stateWith([
      ["m1", 1, mapping("m1", "3")],
      ["m3", 3, mapping("m3", "7")],
    ]);
    const created = { m1: 1, m2: 2, m3: 3 } as Record<string, number>;
    unwindEvents(
      state,
      [
        event({ seq: 6, operation: "create", resourceId: "m3", after: mapping("m3", "7") }),
        event({ seq: 5, operation: "delete", resourceId: "m2", before: mapping("m2", "5") }),
        event({
          seq: 4,
          operation: "update",
          resourceId: "m1",
          before: mapping("m1", "1"),
          after: mapping("m1", "3"),
        }),
      ],
      (_kind, id) => created[id],
    );
    expect(costs(state)).toEqual(["1", "5"]);
  });

  it("restores a deleted service's cascade and gives detached rules their group back", () => {
    const state = stateWith([["m1", 1, mapping("m1", "1", { group_id: null, revision: 3 })]]);
    unwindEvents(
      state,
      [
        event({
          seq: 9,
          operation: "delete",
          resourceType: "service",
          resourceId: "s2",
          before: { service_id: "s2", name: "gone" },
          cascade: {
            deleted: {
              fields: [{ field_id: "f1", name: "flavor", service_id: "s2" }],
              mappings: [mapping("m9", "9", { service_id: null, field_id: "f1", value: "a" })],
            },
          },
        }),
        event({
          seq: 8,
          operation: "delete",
          resourceType: "group",
          resourceId: "g1",
          before: { group_id: "g1", name: "gold" },
          cascade: { detached: { mappings: [mapping("m1", "1", { revision: 3 })] } },
        }),
      ],
      (_kind, id) => ({ m1: 1, m9: 7 })[id],
    );
    expect(state.service.get("s2")?.object).toEqual({ service_id: "s2", name: "gone" });
    expect(state.field.get("f1")?.object.service_id).toBe("s2");
    expect(state.group.get("g1")?.object.name).toBe("gold");
    expect(state.mapping.get("m1")?.object).toMatchObject({ group_id: "g1", revision: 2 });
    expect(inLoadOrder(state.mapping).map((object) => object.mapping_id)).toEqual(["m1", "m9"]);
  });

  it("puts a restored rule back at its place in creation order", () => {
    const state = stateWith([
      ["m1", 10, mapping("m1", "1")],
      ["m3", 30, mapping("m3", "3")],
    ]);
    unwindEvents(
      state,
      [event({ seq: 40, operation: "delete", resourceId: "m2", before: mapping("m2", "2") })],
      () => 20,
    );
    expect(costs(state)).toEqual(["1", "2", "3"]);
  });

  it("places a rule older than the trail, deleted since, before the others", () => {
    const state = stateWith([["m1", 10, mapping("m1", "1")]]);
    unwindEvents(
      state,
      [event({ seq: 40, operation: "delete", resourceId: "m0", before: mapping("m0", "0") })],
      () => undefined,
    );
    expect(costs(state)).toEqual(["0", "1"]);
  });

  it("undoes a soft deletion (an update that set deleted)", () => {
    const alive = mapping("m1", "1", { deleted: null });
    const state = stateWith([["m1", 1, mapping("m1", "1", { deleted: "2026-11-25T10:00:00" })]]);
    unwindEvents(
      state,
      [
        event({
          seq: 2,
          operation: "update",
          before: alive,
          after: state.mapping.get("m1")!.object,
        }),
      ],
      () => 1,
    );
    expect(state.mapping.get("m1")?.object).toEqual(alive);
  });

  it("ignores resources that are not part of a rule set", () => {
    const state = stateWith([["m1", 1, mapping("m1", "1")]]);
    unwindEvents(
      state,
      [event({ seq: 2, operation: "create", resourceType: "user", resourceId: "m1" })],
      () => 1,
    );
    expect(costs(state)).toEqual(["1"]);
  });
});

describe("validity periods", () => {
  const at = (text: string) => Date.parse(text);
  const rule = mapping("m1", "1", {
    start: "2026-11-25T10:00:00",
    end: "2026-11-25T12:00:00.500000",
    deleted: null,
  });

  it("is in force from its start (included) to its end (excluded)", () => {
    expect(exclusionAt(rule, at("2026-11-25T09:59:59.999Z"))).toBe("not_started");
    expect(exclusionAt(rule, at("2026-11-25T10:00:00Z"))).toBeNull();
    expect(exclusionAt(rule, at("2026-11-25T12:00:00.499Z"))).toBeNull();
    expect(exclusionAt(rule, at("2026-11-25T12:00:00.500Z"))).toBe("ended");
  });

  it("is not in force once deleted; rules without dates always are", () => {
    const deleted = { ...rule, deleted: "2026-11-25T11:00:00" };
    expect(exclusionAt(deleted, at("2026-11-25T10:30:00Z"))).toBeNull();
    expect(exclusionAt(deleted, at("2026-11-25T11:00:00Z"))).toBe("deleted");
    expect(exclusionAt(mapping("m2", "1"), 0)).toBeNull();
  });

  it("finds the stretch between boundaries a moment is in, and when it ends", () => {
    const boundaries = lifecycleBoundaries([rule, { ...rule, end: null }]);
    expect(boundaries).toEqual([at("2026-11-25T10:00:00Z"), at("2026-11-25T12:00:00.500Z")]);
    expect(intervalOf(boundaries, at("2026-11-25T09:00:00Z"))).toEqual({
      index: 0,
      until: boundaries[0],
    });
    expect(intervalOf(boundaries, boundaries[0]!)).toEqual({ index: 1, until: boundaries[1] });
    expect(intervalOf(boundaries, at("2026-11-26T00:00:00Z"))).toEqual({
      index: 2,
      until: Infinity,
    });
  });
});
