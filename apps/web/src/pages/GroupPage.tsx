import { useQuery } from "@tanstack/react-query";
import { getRouteApi, Link, useNavigate } from "@tanstack/react-router";
import { Tabs } from "radix-ui";
import { useMemo, useState } from "react";
import type { TGroup } from "@ratecard/validators";
import { Breadcrumbs } from "../components/Breadcrumbs";
import { GroupHelp } from "../components/Concepts";
import { CopyableId } from "../components/CopyableId";
import { DeleteGroupDialog } from "../components/DeleteDialogs";
import { EmptyState } from "../components/EmptyState";
import { MissingRecord, QueryState } from "../components/QueryState";
import { RuleSetWarnings } from "../components/RuleSetWarnings";
import { RuleTable } from "../components/RuleTable";
import { useLookups } from "../hooks";
import { buildRuleRows } from "../lib/rules";
import { useTRPC } from "../trpc";

const route = getRouteApi("/hashmap/groups/$groupId");

export function GroupPage() {
  const trpc = useTRPC();
  const { groupId } = route.useParams();
  const group = useQuery(trpc.hashmap.groups.get.queryOptions({ group_id: groupId }));
  return (
    <QueryState query={group} notFound={<MissingRecord what="Group" backTo="/hashmap/groups" backLabel="Back to groups" />}>
      {(data) => <GroupDetails group={data} />}
    </QueryState>
  );
}

function GroupDetails({ group }: { group: TGroup }) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const { tab = "mappings" } = route.useSearch();
  const filter = { group_id: group.group_id };
  const mappings = useQuery(trpc.hashmap.groups.mappings.queryOptions(filter));
  const thresholds = useQuery(trpc.hashmap.groups.thresholds.queryOptions(filter));
  const { lookups } = useLookups();
  const warnings = useQuery(trpc.hashmap.warnings.queryOptions(filter));
  const [deleting, setDeleting] = useState(false);
  const rows = useMemo(
    () => buildRuleRows(mappings.data?.mappings ?? [], thresholds.data?.thresholds ?? [], lookups),
    [mappings.data, thresholds.data, lookups],
  );
  const explorerSearch = { group_id: group.group_id };

  return (
    <section>
      <Breadcrumbs crumbs={[{ label: "Groups", to: "/hashmap/groups" }, { label: group.name }]} />
      <header className="page-header">
        <div>
          <p className="eyebrow">Group</p>
          <h1>{group.name}</h1>
          <CopyableId id={group.group_id} label="group ID" />
        </div>
        <div className="header-actions">
          <Link to="/hashmap/rules" search={explorerSearch} className="button">
            Open in rules explorer
          </Link>
          <button type="button" className="button danger-outline" onClick={() => setDeleting(true)}>
            Delete group
          </button>
        </div>
      </header>
      <RuleSetWarnings query={warnings} lookups={lookups} rules={rows} />
      <GroupHelp />
      <Tabs.Root
        value={tab}
        onValueChange={(next) =>
          void navigate({
            to: "/hashmap/groups/$groupId",
            params: { groupId: group.group_id },
            search: { tab: next === "thresholds" ? "thresholds" : undefined },
            replace: true,
          })
        }
        className="tabs"
      >
        <Tabs.List className="tab-list" aria-label="Rules of the group">
          <Tabs.Trigger value="mappings" className="tab">
            Mappings <span className="count">{mappings.data?.mappings.length ?? "…"}</span>
          </Tabs.Trigger>
          <Tabs.Trigger value="thresholds" className="tab">
            Thresholds <span className="count">{thresholds.data?.thresholds.length ?? "…"}</span>
          </Tabs.Trigger>
        </Tabs.List>
        <Tabs.Content value="mappings" className="panel">
          <div className="toolbar">
            <p className="muted">Mappings of any service or field that belong to {group.name}.</p>
            <Link to="/hashmap/mappings/new" search={explorerSearch} className="button primary">
              Add mapping to group
            </Link>
          </div>
          <QueryState query={mappings}>
            {() => (
              <RuleTable
                label={`Mappings in group ${group.name}`}
                kind="mapping"
                rows={rows}
                matchHeader="Value"
                showAttachedTo
                showGroup={false}
                empty={
                  <EmptyState
                    title="No mappings in this group yet"
                    action={
                      <Link to="/hashmap/mappings/new" search={explorerSearch} className="button primary">
                        Add the first mapping
                      </Link>
                    }
                  >
                    Choose this group when you create or edit a mapping.
                  </EmptyState>
                }
              />
            )}
          </QueryState>
        </Tabs.Content>
        <Tabs.Content value="thresholds" className="panel">
          <div className="toolbar">
            <p className="muted">Thresholds of any service or field that belong to {group.name}.</p>
            <Link to="/hashmap/thresholds/new" search={explorerSearch} className="button primary">
              Add threshold to group
            </Link>
          </div>
          <QueryState query={thresholds}>
            {() => (
              <RuleTable
                label={`Thresholds in group ${group.name}`}
                kind="threshold"
                rows={rows}
                matchHeader="Level"
                showAttachedTo
                showGroup={false}
                empty={
                  <EmptyState
                    title="No thresholds in this group yet"
                    action={
                      <Link to="/hashmap/thresholds/new" search={explorerSearch} className="button primary">
                        Add the first threshold
                      </Link>
                    }
                  >
                    Choose this group when you create or edit a threshold.
                  </EmptyState>
                }
              />
            )}
          </QueryState>
        </Tabs.Content>
      </Tabs.Root>
      {deleting && (
        <DeleteGroupDialog group={group} onClose={() => setDeleting(false)} onDeleted={() => navigate({ to: "/hashmap/groups" })} />
      )}
    </section>
  );
}
