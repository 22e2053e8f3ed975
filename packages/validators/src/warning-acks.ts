import { z } from "zod";
import { ZRuleSetWarning } from "./rating.js";

// Acknowledged rule-set warnings: an operator marks a warning as intended (a deliberate tenant
// override), with a note. The acknowledgement holds while the rules involved stay as they were.

/** The longest note kept with an acknowledgement. */
export const WARNING_NOTE_MAX_LENGTH = 1000;

const ZWarningKey = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .meta({ description: "The warning's key (its code and what it is about, hashed)" });

export const ZWarningAcknowledgement = z
  .object({
    note: z.string(),
    user_id: z.string().nullable(),
    user_name: z.string().nullable(),
    /** When it was acknowledged (ISO 8601). */
    at: z.string(),
    revision: z.int(),
    /**
     * True when a rule involved changed (or one joined or left the warning) since: the warning is
     * open again, and the acknowledgement only says what was accepted before.
     */
    reopened: z.boolean(),
  })
  .meta({ id: "WarningAcknowledgement" });
export type TWarningAcknowledgement = z.infer<typeof ZWarningAcknowledgement>;

export const ZAcknowledgeableWarning = ZRuleSetWarning.extend({
  warning_key: ZWarningKey,
  /** The rules involved as they are now (ids and revisions, hashed): acknowledging sends it back. */
  fingerprint: z.string(),
  acknowledgement: ZWarningAcknowledgement.nullable(),
}).meta({ id: "AcknowledgeableWarning" });
export type TAcknowledgeableWarning = z.infer<typeof ZAcknowledgeableWarning>;

export const ZAcknowledgeWarningRequest = z.strictObject({
  warning_key: ZWarningKey,
  /** The fingerprint read with the warning: refused (412) when the rules changed since. */
  fingerprint: z.string().min(1).max(200),
  note: z
    .string()
    .trim()
    .min(1, "Say why this warning is intended")
    .max(WARNING_NOTE_MAX_LENGTH, `At most ${WARNING_NOTE_MAX_LENGTH} characters`),
});
export type TAcknowledgeWarningRequest = z.infer<typeof ZAcknowledgeWarningRequest>;

export const ZWithdrawWarningAcknowledgementRequest = z.strictObject({ warning_key: ZWarningKey });

/** The warning is acknowledged: it was, and nothing it is about changed since. */
export function isAcknowledged(warning: Pick<TAcknowledgeableWarning, "acknowledgement">): boolean {
  return warning.acknowledgement !== null && !warning.acknowledgement.reopened;
}
