import { z } from "zod";
import { ZRuleStatus, type RuleKind } from "./rules";

// The state of a rule list that lives in the query string (text, type, status, sort, and the rule
// open in the side panel); the server filters and sorts (rule-window.ts).

const optionalText = z.string().optional().catch(undefined);

/** The query string of a list of rules on a service, field or group page. */
export const ZRuleListSearch = z.object({
  q: optionalText,
  type: z.enum(["flat", "rate"]).optional().catch(undefined),
  /** Deleted rules are fetched (`deleted=true`) and listed only with status=deleted. */
  status: ZRuleStatus,
  sort: optionalText,
  rule: optionalText,
});
export type RuleListSearch = z.output<typeof ZRuleListSearch>;

/**
 * What the side panel shows: an existing rule ("mapping:<id>") or a new one ("new:threshold").
 * Anything else is no panel, so a mangled address just shows the list.
 */
export type RulePanelTarget = { kind: RuleKind; ruleId?: string };

export function parseRulePanel(text: string | undefined): RulePanelTarget | null {
  if (!text) return null;
  const colon = text.indexOf(":");
  if (colon < 0) return null;
  const head = text.slice(0, colon);
  const tail = text.slice(colon + 1);
  if (head === "new" && (tail === "mapping" || tail === "threshold")) return { kind: tail };
  if ((head === "mapping" || head === "threshold") && tail) return { kind: head, ruleId: tail };
  return null;
}

export function formatRulePanel(target: RulePanelTarget): string {
  return target.ruleId ? `${target.kind}:${target.ruleId}` : `new:${target.kind}`;
}

/** "12 rules", or "3 rules of 2,000 shown" while a filter hides some. */
export function countText(shown: number, total: number, noun: string): string {
  const format = (count: number) => count.toLocaleString("en-US");
  const counted = `${format(shown)} ${shown === 1 ? noun : `${noun}s`}`;
  return shown === total ? counted : `${counted} of ${format(total)} shown`;
}

// The group the operator last put a new rule in, so entering a series of rules does not mean
// choosing it again each time. Only an existing group is offered back.
const LAST_GROUP_KEY = "ratecard.lastRuleGroup";

export interface SmallStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export function rememberGroup(storage: SmallStorage | undefined, groupId: string): void {
  try {
    storage?.setItem(LAST_GROUP_KEY, groupId);
  } catch {
    // Storage may be full or disabled: remembering is a convenience.
  }
}

export function rememberedGroup(
  storage: SmallStorage | undefined,
  groups: readonly { group_id: string }[],
): string | undefined {
  let groupId: string | null = null;
  try {
    groupId = storage?.getItem(LAST_GROUP_KEY) ?? null;
  } catch {
    return undefined;
  }
  return groupId && groups.some((group) => group.group_id === groupId) ? groupId : undefined;
}

export function browserStorage(): SmallStorage | undefined {
  try {
    return typeof window === "undefined" ? undefined : window.localStorage;
  } catch {
    return undefined;
  }
}
