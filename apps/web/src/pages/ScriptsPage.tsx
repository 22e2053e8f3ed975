import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import type { ColumnDef } from "@tanstack/react-table";
import type { TScript } from "@ratecard/validators";
import { HelpBox } from "../components/Concepts";
import { DeleteScriptDialog } from "../components/DeleteDialogs";
import { NamedResourceListPage } from "../components/NamedResourceListPage";
import { nameLinkColumn } from "../components/ResourceColumns";
import { useTRPC } from "../trpc";

const checksumColumn: ColumnDef<TScript, string> = {
  id: "checksum",
  accessorFn: (script) => script.checksum,
  header: "Checksum (SHA-512)",
  enableSorting: false,
  cell: (info) => (
    <code className="checksum" title={info.getValue()}>
      {info.getValue().slice(0, 16)}…
    </code>
  ),
};

const columns = [
  nameLinkColumn<TScript>((script) => (
    <Link to="/pyscripts/$scriptId" params={{ scriptId: script.script_id }}>
      {script.name}
    </Link>
  )),
  checksumColumn,
];

export function ScriptsPage() {
  const trpc = useTRPC();
  // The list leaves out the sources: they can be large, and the script page loads one.
  const scripts = useQuery(
    trpc.pyscripts.scripts.list.queryOptions({ no_data: true }, { select: (data) => data.scripts }),
  );

  return (
    <NamedResourceListPage
      from="/pyscripts"
      noun="script"
      plural="scripts"
      title="Scripts"
      lead="Python scripts run by the PyScripts rating module to set prices."
      help={
        <HelpBox summary="What does a script do?">
          <p>
            Each script receives the usage to rate in a global <code>data</code> (
            <code>data['usage'][service]</code> holds items with <code>item['vol']['qty']</code> and{" "}
            <code>item['metadata']</code>) and sets <code>item['rating'] = {"{'price': …}"}</code>.
            When there are several scripts, the order in which they run is not guaranteed.
          </p>
        </HelpBox>
      }
      renderCreate={(label) => (
        <Link to="/pyscripts/new" className="button primary">
          {label}
        </Link>
      )}
      query={scripts}
      columns={columns}
      getRowId={(script) => script.script_id}
      emptyText={
        <>
          Paste a Python rating script or upload a <code>.py</code> file.
        </>
      }
      renderDeleteDialog={(script, close) => (
        <DeleteScriptDialog script={script} onClose={close} onDeleted={close} />
      )}
    />
  );
}
