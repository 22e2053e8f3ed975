import { useQuery } from "@tanstack/react-query";
import { getRouteApi, Link, useNavigate } from "@tanstack/react-router";
import { Tabs } from "radix-ui";
import { useState } from "react";
import type { TGroup } from "@ratecard/validators";
import { Breadcrumbs } from "../components/Breadcrumbs";
import { GroupHelp } from "../components/Concepts";
import { DeleteGroupDialog } from "../components/DeleteDialogs";
import { MissingRecord, QueryState } from "../components/QueryState";
import { RecordHeader } from "../components/RecordHeader";
import { InPlaceRuleEditor } from "../components/InPlaceRuleEditor";
import { RuleSetWarnings } from "../components/RuleSetWarnings";
import { HistoryTab, HistoryTabPanel, RuleCountTab, RulesTabPanel } from "../components/RuleTabs";
import { useLookups } from "../hooks";
import { useTRPC } from "../trpc";

const route = getRouteApi("/hashmap/groups/$groupId");

export function GroupPage() {
  const trpc = useTRPC();
  const { groupId } = route.useParams();
  const group = useQuery(trpc.hashmap.groups.get.queryOptions({ group_id: groupId }));
  return (
    <QueryState
      query={group}
      notFound={<MissingRecord what="Group" backTo="/hashmap/groups" backLabel="Back to groups" />}
    >
      {(data) => <GroupDetails group={data} />}
    </QueryState>
  );
}

function GroupDetails({ group }: { group: TGroup }) {
  const navigate = useNavigate();
  // Only the tab: the list's own search, sort and panel must not re-render the whole page.
  const tab = route.useSearch({ select: (search) => search.tab }) ?? "mappings";
  const { lookups } = useLookups();
  const [deleting, setDeleting] = useState(false);
  const explorerSearch = { group_id: group.group_id };
  const newRule = { groupId: group.group_id };

  return (
    // Rules named outside the lists (the warnings) open in a panel over the page.
    <InPlaceRuleEditor>
      <section>
        <Breadcrumbs crumbs={[{ label: "Groups", to: "/hashmap/groups" }, { label: group.name }]} />
        <RecordHeader
          eyebrow="Group"
          name={group.name}
          id={group.group_id}
          noun="group"
          onDelete={() => setDeleting(true)}
          action={
            <Link to="/hashmap/rules" search={explorerSearch} className="button">
              Open in rules explorer
            </Link>
          }
        />
        <RuleSetWarnings scope={{ group_id: group.group_id }} lookups={lookups} />
        <GroupHelp />
        <Tabs.Root
          value={tab}
          onValueChange={(next) =>
            void navigate({
              to: "/hashmap/groups/$groupId",
              params: { groupId: group.group_id },
              search: (previous) => ({
                ...previous,
                tab: next === "thresholds" || next === "history" ? next : undefined,
                rule: undefined,
              }),
              replace: true,
            })
          }
          className="tabs"
        >
          <Tabs.List className="tab-list" aria-label="Rules of the group">
            <RuleCountTab value="mappings" label="Mappings" kind="mapping" newRule={newRule} />
            <RuleCountTab
              value="thresholds"
              label="Thresholds"
              kind="threshold"
              newRule={newRule}
            />
            <HistoryTab />
          </Tabs.List>
          <RulesTabPanel
            kind="mapping"
            intro={`Mappings of any service or field that belong to ${group.name}.`}
            newRule={newRule}
            addLabel="Add mapping to group"
            addFirstLabel="Add the first mapping"
            tableLabel={`Mappings in group ${group.name}`}
            matchHeader="Value"
            showAttachedTo
            showGroup={false}
            emptyTitle="No mappings in this group yet"
            emptyText="Choose this group when you create or edit a mapping."
          />
          <RulesTabPanel
            kind="threshold"
            intro={`Thresholds of any service or field that belong to ${group.name}.`}
            newRule={newRule}
            addLabel="Add threshold to group"
            addFirstLabel="Add the first threshold"
            tableLabel={`Thresholds in group ${group.name}`}
            matchHeader="Level"
            showAttachedTo
            showGroup={false}
            emptyTitle="No thresholds in this group yet"
            emptyText="Choose this group when you create or edit a threshold."
          />
          <HistoryTabPanel
            label={`History of group ${group.name}`}
            record={{ resource_type: "group", resource_id: group.group_id }}
          />
        </Tabs.Root>
        {deleting && (
          <DeleteGroupDialog
            group={group}
            onClose={() => setDeleting(false)}
            onDeleted={() => navigate({ to: "/hashmap/groups" })}
          />
        )}
      </section>
    </InPlaceRuleEditor>
  );
}
