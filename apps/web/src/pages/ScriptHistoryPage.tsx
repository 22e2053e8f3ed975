import { useQuery } from "@tanstack/react-query";
import { getRouteApi } from "@tanstack/react-router";
import { useId } from "react";
import { History } from "../components/History";
import { useCan } from "../session/permissions";
import { useTRPC } from "../trpc";
import { ScriptPage } from "./ScriptPages";

const route = getRouteApi("/pyscripts/$scriptId");

/**
 * A script's page with its history below the editor: the history is a section of the page rather
 * than a tab, so that the script page itself (its editor and unsaved-changes guard) stays as it is.
 */
export function ScriptPageWithHistory() {
  const trpc = useTRPC();
  const { scriptId } = route.useParams();
  const headingId = useId();
  const script = useQuery(trpc.pyscripts.scripts.get.queryOptions({ script_id: scriptId }));
  const { readAudit } = useCan();
  return (
    <>
      <ScriptPage />
      {readAudit && script.data && (
        <section className="panel script-history" aria-labelledby={headingId}>
          <h2 id={headingId}>History</h2>
          <History
            label={`History of script ${script.data.name}`}
            record={{ resource_type: "script", resource_id: scriptId }}
          />
        </section>
      )}
    </>
  );
}
