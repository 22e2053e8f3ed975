import { z } from "zod";
import {
  ruleLifecycleStatus,
  ZRuleStatus,
  type RuleKind,
  type RuleRow,
  type RuleStatus,
} from "./rules";

// The state of a rule list that lives in the query string (text, type, sort, and the rule open in
// the side panel), and the filtering the browser does on the rows the API returned.

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

// Lower-cased text of each row, computed once per row object: a search over 10,000 rules then
// costs one `includes` per row and keystroke.
const haystacks = new WeakMap<RuleRow, string>();

function haystackOf(row: RuleRow): string {
  let text = haystacks.get(row);
  if (text === undefined) {
    text = [row.attachedTo, row.match, row.groupName, row.tenant, row.cost, row.type, row.kind]
      .join("\u0000")
      .toLowerCase();
    haystacks.set(row, text);
  }
  return text;
}

export interface RuleRowFilter {
  kind?: RuleKind | undefined;
  type?: RuleRow["type"] | undefined;
  /** Case-insensitive text searched in every shown column. */
  q?: string | undefined;
  /**
   * Only rules in this state. Without it, every row given is kept: deleted rows are in the rows
   * only when the list fetched them for status=deleted.
   */
  status?: RuleStatus | undefined;
  /** The moment "scheduled" and "ended" are judged at. */
  now?: Date | undefined;
}

export function filterRuleRows(rows: readonly RuleRow[], filter: RuleRowFilter): RuleRow[] {
  const needle = (filter.q ?? "").trim().toLowerCase();
  if (!filter.kind && !filter.type && !needle && !filter.status) return rows as RuleRow[];
  const now = filter.now ?? new Date();
  return rows.filter(
    (row) =>
      (!filter.kind || row.kind === filter.kind) &&
      (!filter.type || row.type === filter.type) &&
      (!filter.status || ruleLifecycleStatus(row, now) === filter.status) &&
      (!needle || haystackOf(row).includes(needle)),
  );
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
