import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { appRouter } from "../src/root.js";

// trpc-to-openapi switches bare boolean, number, bigint and date leaves of an input object to
// coercion, on the shared schema object: "false" would become true over REST and RPC alike.
// Inputs must route such values through explicit transforms (see @ratecard/validators).
const COERCIBLE = new Set(["boolean", "number", "bigint", "date"]);
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault"]);

function coercibleLeaves(schema: z.core.$ZodType, path: string): string[] {
  const def = schema._zod.def as unknown as {
    type: string;
    innerType?: z.core.$ZodType;
    shape?: Record<string, z.core.$ZodType>;
  };
  if (WRAPPERS.has(def.type) && def.innerType) return coercibleLeaves(def.innerType, path);
  if (COERCIBLE.has(def.type)) return [path];
  if (def.type === "object" && def.shape) {
    return Object.entries(def.shape).flatMap(([key, child]) =>
      coercibleLeaves(child, `${path}.${key}`),
    );
  }
  return [];
}

describe("procedure inputs", () => {
  const procedures = Object.entries(
    appRouter._def.procedures as unknown as Record<string, { _def: { inputs: z.core.$ZodType[] } }>,
  );

  it("has procedures to check", () => {
    expect(procedures.length).toBeGreaterThan(20);
  });

  it.each(procedures)(
    "%s has no input leaf that trpc-to-openapi would coerce",
    (name, procedure) => {
      const leaves = procedure._def.inputs.flatMap((input) => coercibleLeaves(input, name));
      expect(leaves).toEqual([]);
    },
  );
});
