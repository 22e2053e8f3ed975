import { Tabs } from "radix-ui";
import type { ReactNode } from "react";
import type { RuleKind, RuleRow } from "../lib/rules";
import { Allowed, useCan } from "../session/permissions";
import { EmptyState } from "./EmptyState";
import { History, type HistorySubject } from "./History";
import { ErrorPanel, type QueryLike } from "./QueryState";
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
  query,
  rows,
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
  /** The rules of this kind; the list waits for it. */
  query: QueryLike<unknown>;
  rows: RuleRow[];
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
        rows={rows}
        matchHeader={matchHeader}
        showAttachedTo={showAttachedTo}
        showGroup={showGroup}
        newRule={newRule}
        loading={query.isPending}
        error={
          query.isError ? (
            <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />
          ) : undefined
        }
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

export function HistoryTabPanel({
  label,
  subjects,
}: {
  label: string;
  subjects: HistorySubject[];
}) {
  if (!useCan().readAudit) return null;
  return (
    <Tabs.Content value="history" className="panel">
      <History label={label} subjects={subjects} />
    </Tabs.Content>
  );
}

/** The record first (it is always shown), then its rules. */
export function ruleSubjects(
  own: HistorySubject,
  mappings: { mapping_id: string }[] | undefined,
  thresholds: { threshold_id: string }[] | undefined,
  more: HistorySubject[] = [],
): HistorySubject[] {
  return [
    own,
    ...more,
    ...(mappings ?? []).map((rule) => ({
      resource_type: "mapping" as const,
      resource_id: rule.mapping_id,
    })),
    ...(thresholds ?? []).map((rule) => ({
      resource_type: "threshold" as const,
      resource_id: rule.threshold_id,
    })),
  ];
}
