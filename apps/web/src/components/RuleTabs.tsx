import { Link } from "@tanstack/react-router";
import { Tabs } from "radix-ui";
import type { ReactNode } from "react";
import type { RuleKind, RuleRow } from "../lib/rules";
import { Allowed } from "../session/permissions";
import { EmptyState } from "./EmptyState";
import { QueryState, type QueryLike } from "./QueryState";
import { RuleTable } from "./RuleTable";

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

/** What a new rule is attached to: its service, field or group. */
export interface NewRuleSearch {
  service_id?: string;
  field_id?: string;
  group_id?: string;
}

function AddRuleLink({
  kind,
  search,
  label,
}: {
  kind: RuleKind;
  search: NewRuleSearch;
  label: string;
}) {
  const to = kind === "mapping" ? "/hashmap/mappings/new" : "/hashmap/thresholds/new";
  return (
    <Allowed to="writeRules">
      <Link to={to} search={search} className="button primary">
        {label}
      </Link>
    </Allowed>
  );
}

/**
 * The "mappings" or "thresholds" tab of a service, field or group: what they do, a link to add
 * one attached to the record, optional help, and the table with its "nothing yet" state.
 */
export function RulesTabPanel({
  kind,
  query,
  rows,
  intro,
  newRuleSearch,
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
  /** The rules of this kind; the table waits for it. */
  query: QueryLike<unknown>;
  rows: RuleRow[];
  intro: ReactNode;
  newRuleSearch: NewRuleSearch;
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
        <AddRuleLink kind={kind} search={newRuleSearch} label={addLabel} />
      </div>
      {help && <div className="help-row">{help}</div>}
      <QueryState query={query}>
        {() => (
          <RuleTable
            label={tableLabel}
            kind={kind}
            rows={rows}
            matchHeader={matchHeader}
            showAttachedTo={showAttachedTo}
            showGroup={showGroup}
            empty={
              <EmptyState
                title={emptyTitle}
                action={<AddRuleLink kind={kind} search={newRuleSearch} label={addFirstLabel} />}
              >
                {emptyText}
              </EmptyState>
            }
          />
        )}
      </QueryState>
    </Tabs.Content>
  );
}
