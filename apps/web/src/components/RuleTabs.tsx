import { useQuery } from "@tanstack/react-query";
import { Tabs } from "radix-ui";
import type { ReactNode } from "react";
import { pageWindowFilters } from "../lib/rule-window";
import type { RuleKind } from "../lib/rules";
import { Allowed, useCan } from "../session/permissions";
import { useTRPC } from "../trpc";
import { EmptyState } from "./EmptyState";
import { History, type HistoryRecord } from "./History";
import { RuleList } from "./RuleList";
import { RulePanelLink, type NewRuleContext } from "./RuleTable";

/** A tab naming a list, with the list's length ("…" while it loads). */
export function CountedTab({
  value,
  label,
  count,
}: {
  value: string;
  label: string;
  count: number | undefined;
}) {
  return (
    <Tabs.Trigger value={value} className="tab">
      {label} <span className="count">{count ?? "…"}</span>
    </Tabs.Trigger>
  );
}

/**
 * A tab naming the rules of one kind attached to a record (or in a group), with their count: the
 * server counts them (console.rules' total for one row, the request the list itself makes for its
 * "3 of 2,000" once filtered), so the page never loads the rules to count them.
 */
export function RuleCountTab({
  value,
  label,
  kind,
  newRule,
}: {
  value: string;
  label: string;
  kind: RuleKind;
  newRule: NewRuleContext;
}) {
  const trpc = useTRPC();
  const counted = useQuery(
    trpc.console.rules.queryOptions({ ...pageWindowFilters(newRule, kind), offset: 0, limit: 1 }),
  );
  return <CountedTab value={value} label={label} count={counted.data?.total} />;
}

function AddRuleLink({
  kind,
  context,
  label,
}: {
  kind: RuleKind;
  context: NewRuleContext;
  label: string;
}) {
  return (
    <Allowed to="writeRules">
      <RulePanelLink target={{ kind }} context={context} className="button primary">
        {label}
      </RulePanelLink>
    </Allowed>
  );
}

/**
 * The "mappings" or "thresholds" tab of a service, field or group: what they do, a link to add
 * one attached to the record (in the side panel), optional help, and the searchable list with its
 * "nothing yet" state.
 */
export function RulesTabPanel({
  kind,
  intro,
  newRule,
  addLabel,
  addFirstLabel,
  help,
  tableLabel,
  matchHeader,
  showAttachedTo,
  showGroup,
  emptyTitle,
  emptyText,
}: {
  kind: RuleKind;
  intro: ReactNode;
  newRule: NewRuleContext;
  addLabel: string;
  addFirstLabel: string;
  help?: ReactNode;
  tableLabel: string;
  matchHeader?: string;
  showAttachedTo?: boolean;
  showGroup?: boolean;
  emptyTitle: string;
  emptyText: ReactNode;
}) {
  return (
    <Tabs.Content value={kind === "mapping" ? "mappings" : "thresholds"} className="panel">
      <div className="toolbar">
        <p className="muted">{intro}</p>
        <AddRuleLink kind={kind} context={newRule} label={addLabel} />
      </div>
      {help && <div className="help-row">{help}</div>}
      <RuleList
        label={tableLabel}
        noun={kind}
        kind={kind}
        matchHeader={matchHeader}
        showAttachedTo={showAttachedTo}
        showGroup={showGroup}
        newRule={newRule}
        empty={
          <EmptyState
            title={emptyTitle}
            action={<AddRuleLink kind={kind} context={newRule} label={addFirstLabel} />}
          >
            {emptyText}
          </EmptyState>
        }
      />
    </Tabs.Content>
  );
}

/** The "History" tab of a record: its changes and those of the records beneath it. */
export function HistoryTab() {
  if (!useCan().readAudit) return null;
  return (
    <Tabs.Trigger value="history" className="tab">
      History
    </Tabs.Trigger>
  );
}

export function HistoryTabPanel({ label, record }: { label: string; record: HistoryRecord }) {
  if (!useCan().readAudit) return null;
  return (
    <Tabs.Content value="history" className="panel">
      <History label={label} record={record} />
    </Tabs.Content>
  );
}
