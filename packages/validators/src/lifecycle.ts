import { z } from "zod";
import { parseQueryBoolean } from "./query.js";

// CloudKitty master's rule lifecycle on the wire (docs/lifecycle.md). Dates travel as CloudKitty
// writes them: ISO 8601 without an offset, in UTC (Python's naive `isoformat()`). Ratecard reads
// the same, and also an explicit offset (`Z`, `+02:00`), converted to UTC. A date alone is that
// day's midnight, except for `end`, where CloudKitty's EndDayDatetime makes it 23:59:59.

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** Reads a lifecycle date; undefined when it is not one (a date, or a date and time). */
export function parseRuleDate(text: string, endOfDay = false): Date | undefined {
  const day = DATE_ONLY.exec(text);
  if (day) {
    const [, y, m, d] = day.map(Number) as [number, number, number, number];
    const date = new Date(
      Date.UTC(y, m - 1, d, endOfDay ? 23 : 0, endOfDay ? 59 : 0, endOfDay ? 59 : 0),
    );
    return date.getUTCDate() === d && date.getUTCMonth() === m - 1 ? date : undefined;
  }
  const moment = DATE_TIME.exec(text);
  if (!moment) return undefined;
  const [, y, mo, d, h, mi, s, fraction, offset] = moment;
  const fields = [y, mo, d, h, mi, s ?? "0"].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [year, month, dayOfMonth, hour, minute, second] = fields;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  // Microseconds, as CloudKitty writes them, down to the milliseconds a Date holds.
  const ms = fraction ? Math.floor(Number(fraction.padEnd(6, "0")) / 1000) : 0;
  let time = Date.UTC(year, month - 1, dayOfMonth, hour, minute, second, ms);
  const check = new Date(time);
  if (check.getUTCDate() !== dayOfMonth) return undefined;
  if (offset && offset.toUpperCase() !== "Z") {
    const sign = offset.startsWith("-") ? -1 : 1;
    const digits = offset.slice(1).replace(":", "");
    time -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return new Date(time);
}

/** Writes a lifecycle date as CloudKitty does: UTC, no offset, microseconds only when not zero. */
export function formatRuleDate(date: Date): string {
  const iso = date.toISOString(); // 2026-11-25T20:40:00.123Z
  const ms = date.getUTCMilliseconds();
  return ms === 0 ? iso.slice(0, 19) : `${iso.slice(0, 19)}.${String(ms * 1000).padStart(6, "0")}`;
}

function ruleDate(endOfDay: boolean) {
  return z
    .string({
      error: "Wrong type, expected a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS).",
    })
    .transform((input, ctx) => {
      const parsed = parseRuleDate(input.trim(), endOfDay);
      // A string still (ISO 8601 in UTC, with Z): the parsed input stays assignable to the
      // procedure's input type, for the console's forms that parse with these schemas first.
      if (parsed) return parsed.toISOString();
      ctx.addIssue({
        code: "custom",
        message: `Invalid date '${input}': expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (UTC).`,
        input,
      });
      return z.NEVER;
    });
}

/** `start`: a date and time (a date alone is its midnight, UTC). */
export const ZRuleStart = ruleDate(false);
/** `end`: a date alone means 23:59:59 of that day (CloudKitty's EndDayDatetime). */
export const ZRuleEnd = ruleDate(true);

/** A query-string boolean (as schemas.ts' ZQueryBoolean, which imports this file). */
const ZQueryFlag = z
  .union([z.string(), z.boolean()], { error: "Expected true or false." })
  .transform((input, ctx) => {
    const parsed = parseQueryBoolean(input);
    if (parsed !== undefined) return parsed;
    ctx.addIssue({ code: "custom", message: "Expected true or false.", input });
    return z.NEVER;
  });

const ZText = z.string({ error: "Wrong type, expected a string." });

/** The lifecycle attributes a create or update may give (all optional: CloudKitty 17 sends none). */
export const ruleLifecycleBody = {
  start: ZRuleStart.nullable().optional(),
  end: ZRuleEnd.nullable().optional(),
  description: ZText.max(256, { error: "At most 256 characters." }).nullable().optional(),
  // Shown in every answer, so a client that sends an answer back (CloudKitty master's models accept
  // them all) is not refused; the server never takes them from the client.
  created_at: z.unknown().optional(),
  created_by: z.unknown().optional(),
  updated_by: z.unknown().optional(),
  deleted: z.unknown().optional(),
  deleted_by: z.unknown().optional(),
};

/** A rule's name (mappings and thresholds; a script's name is its identity, checked apart). */
export const ZRuleName = ZText.trim()
  .min(1, { error: "Must not be empty." })
  .max(32, { error: "At most 32 characters." });

/**
 * The lifecycle as every answer shows it (after the rule's own keys, as CloudKitty master).
 * Always there, but typed optional: objects made by code that predates the lifecycle (the
 * console's fixtures, CloudKitty 17's shape) stay valid rules.
 */
export const lifecycleOut = {
  created_at: z.string().meta({ example: "2026-11-25T20:40:00" }).optional(),
  start: z.string().meta({ example: "2026-11-25T20:40:00" }).optional(),
  end: z.string().nullable().optional(),
  name: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  deleted: z.string().nullable().optional(),
  created_by: z.string().nullable().optional(),
  updated_by: z.string().nullable().optional(),
  deleted_by: z.string().nullable().optional(),
};

/** CloudKitty master's list filters (rating/common/db/filters.py). */
export const lifecycleFilters = {
  /** Also list deleted rules (not only them). */
  deleted: ZQueryFlag.optional(),
  /** Rules starting at or after. */
  start: ZRuleStart.optional(),
  /** Rules ending before (rules without an end are left out). */
  end: ZRuleStart.optional(),
  created_by: z.string().optional(),
  updated_by: z.string().optional(),
  deleted_by: z.string().optional(),
  /** Rules whose description contains this, in any case. */
  description: z.string().optional(),
  /** Only rules in force now: started, not ended, not deleted. */
  is_active: ZQueryFlag.optional(),
};

export type TLifecycleFilters = {
  deleted?: boolean | undefined;
  /** ISO 8601 in UTC, as the schemas above leave it. */
  start?: string | undefined;
  end?: string | undefined;
  created_by?: string | undefined;
  updated_by?: string | undefined;
  deleted_by?: string | undefined;
  description?: string | undefined;
  is_active?: boolean | undefined;
};
