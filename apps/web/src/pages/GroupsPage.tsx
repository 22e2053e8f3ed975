import { useMutation, useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { toast } from "sonner";
import { ZGroupCreate, type TGroup } from "@ratecard/validators";
import { GroupHelp } from "../components/Concepts";
import { DeleteGroupDialog } from "../components/DeleteDialogs";
import { NameDialog } from "../components/NameDialog";
import { NamedResourceListPage } from "../components/NamedResourceListPage";
import { idColumn, nameLinkColumn } from "../components/ResourceColumns";
import { useRefreshAll } from "../hooks";
import { useTRPC } from "../trpc";

const columns = [
  nameLinkColumn<TGroup>((group) => (
    <Link to="/hashmap/groups/$groupId" params={{ groupId: group.group_id }}>
      {group.name}
    </Link>
  )),
  idColumn<TGroup>("group", (group) => group.group_id),
];

export function GroupsPage() {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const groups = useQuery(
    trpc.hashmap.groups.list.queryOptions(undefined, { select: (data) => data.groups }),
  );
  const createGroup = useMutation(trpc.hashmap.groups.create.mutationOptions());
  const [creating, setCreating] = useState(false);

  return (
    <NamedResourceListPage
      from="/hashmap/groups"
      noun="group"
      plural="groups"
      title="Groups"
      lead="Rules in one group are calculated together; the prices of the groups add up."
      help={<GroupHelp />}
      renderCreate={(label) => (
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          {label}
        </button>
      )}
      query={groups}
      columns={columns}
      getRowId={(group) => group.group_id}
      emptyText={
        <>
          Without groups every rule is in the default group. Create groups to price the same usage
          several times, for example <code>instance_uptime</code> and <code>license_fees</code>.
        </>
      }
      renderDeleteDialog={(group, close) => (
        <DeleteGroupDialog group={group} onClose={close} onDeleted={close} />
      )}
    >
      <NameDialog
        open={creating}
        onOpenChange={setCreating}
        title="Create a group"
        description="A group is priced on its own and added to the other groups. Give it a name that says what it charges for."
        nameLabel="Group name"
        nameHint="For example instance_uptime or license_fees."
        submitLabel="Create group"
        schema={ZGroupCreate}
        onSubmit={async (name) => {
          const group = await createGroup.mutateAsync({ name });
          toast.success(`Group “${group.name}” created`);
          await refreshAll();
        }}
      />
    </NamedResourceListPage>
  );
}
