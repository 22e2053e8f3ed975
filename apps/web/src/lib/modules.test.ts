import { describe, expect, it } from "vitest";
import {
  describeModuleChange,
  describeProcessingOrder,
  parsePriority,
  processingOrder,
} from "./modules";

const modules = (hashmap: [boolean, number], pyscripts: [boolean, number], noop = false) => [
  { module_id: "hashmap", enabled: hashmap[0], priority: hashmap[1] },
  { module_id: "pyscripts", enabled: pyscripts[0], priority: pyscripts[1] },
  { module_id: "noop", enabled: noop, priority: 1 },
];

describe("the order CloudKitty runs the modules in", () => {
  it("is the enabled ones, biggest priority first", () => {
    const order = processingOrder(modules([true, 1], [true, 5], true));
    expect(order.map((module) => module.module_id)).toEqual(["pyscripts", "hashmap", "noop"]);
    expect(describeProcessingOrder(modules([true, 1], [false, 5]))).toBe(
      "CloudKitty runs hashmap (priority 1).",
    );
    expect(describeProcessingOrder(modules([false, 1], [false, 5]))).toBe(
      "No module is enabled: CloudKitty rates every usage 0.",
    );
    expect(describeProcessingOrder(modules([true, 1], [true, 1]))).toContain("no defined order");
  });
});

describe("a module switch states its effect on prices", () => {
  it("disabling hashmap: everything its rules price is charged 0", () => {
    const all = modules([true, 1], [false, 0]);
    const change = describeModuleChange(all[0]!, { enabled: false }, all);
    expect(change).toEqual({
      title: "Disable hashmap?",
      effect: "Disabling hashmap: CloudKitty will charge 0 for everything the hashmap rules price.",
      confirmLabel: "Disable hashmap",
      done: "hashmap disabled",
      undo: { enabled: true },
    });
  });

  it("disabling hashmap while scripts run: they may still price", () => {
    const all = modules([true, 1], [true, 0]);
    expect(describeModuleChange(all[0]!, { enabled: false }, all).effect).toContain(
      "unless a script of the pyscripts module prices it",
    );
  });

  it("enabling pyscripts: scripts change prices, before or after hashmap", () => {
    const after = modules([true, 1], [false, 0]);
    const enabling = describeModuleChange(after[1]!, { enabled: true }, after);
    expect(enabling.effect).toMatch(
      /^Enabling pyscripts: scripts run by CloudKitty will change prices\./,
    );
    expect(enabling.effect).toContain("run after hashmap");
    expect(enabling.undo).toEqual({ enabled: false });
    const before = modules([true, 1], [false, 9]);
    expect(describeModuleChange(before[1]!, { enabled: true }, before).effect).toContain(
      "hashmap then adds the price of its rules to what the scripts set",
    );
    const alone = modules([false, 1], [false, 9]);
    expect(describeModuleChange(alone[1]!, { enabled: true }, alone).effect).toContain(
      "what the scripts set",
    );
  });

  it("noop changes no price", () => {
    const all = modules([true, 1], [false, 0]);
    expect(describeModuleChange(all[2]!, { enabled: true }, all).effect).toContain(
      "changes no price",
    );
  });
});

describe("a priority change states whether the order, and so prices, change", () => {
  it("the same order: no price changes", () => {
    const all = modules([true, 1], [true, 0]);
    const change = describeModuleChange(all[0]!, { priority: 7 }, all);
    expect(change.effect).toContain("no price changes");
    expect(change.undo).toEqual({ priority: 1 });
    expect(change.done).toBe("Priority of hashmap set to 7");
  });

  it("noop moving around prices nothing", () => {
    const all = modules([true, 5], [true, 3], true);
    expect(describeModuleChange(all[2]!, { priority: 4 }, all).effect).toContain(
      "no price changes",
    );
  });

  it("pyscripts overtaking hashmap: hashmap adds to what the scripts set", () => {
    const all = modules([true, 1], [true, 0]);
    expect(describeModuleChange(all[1]!, { priority: 7 }, all).effect).toBe(
      "With priority 7: The scripts run before hashmap (priority 7 over 1): hashmap then adds the price of its rules to what the scripts set.",
    );
  });

  it("an equal priority leaves the order undefined", () => {
    const all = modules([true, 1], [true, 0]);
    expect(describeModuleChange(all[1]!, { priority: 1 }, all).effect).toContain(
      "no defined order",
    );
  });

  it("a disabled module's priority changes nothing now", () => {
    const all = modules([true, 1], [false, 0]);
    expect(describeModuleChange(all[1]!, { priority: 7 }, all).effect).toContain(
      "No price changes now",
    );
  });
});

describe("priority input", () => {
  it("takes whole numbers only", () => {
    expect(parsePriority(" 7 ")).toBe(7);
    expect(parsePriority("-2")).toBe(-2);
    expect(parsePriority("x")).toBeNull();
    expect(parsePriority("1.5")).toBeNull();
    expect(parsePriority("99999999999999999999")).toBeNull();
  });
});
