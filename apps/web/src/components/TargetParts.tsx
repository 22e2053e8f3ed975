import { useMutation } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { toast } from "sonner";
import { useRefreshAll } from "../hooks";
import { formatDateTime } from "../lib/accounts";
import { describeProblem } from "../lib/errors";
import {
  applyBlockedReason,
  describeApplyInProgress,
  describeModules,
  describeProbe,
  GENERATION_LABEL,
} from "../lib/targets";
import { useTRPC, type RouterOutputs } from "../trpc";
import { ConfirmDialog } from "./ConfirmDialog";
import type { Target } from "./TargetDialog";

type Probe = NonNullable<Target["last_probe"]>;
export type ImportResult = RouterOutputs["targets"]["import"];

export function ModeTag({ mode, prune }: { mode: Target["mode"]; prune: boolean }) {
  return (
    <span className="target-mode">
      <span className={`tag ${mode === "managed" ? "target-managed" : "target-source"}`}>
        {mode === "managed" ? "managed" : "import source"}
      </span>
      {prune && <span className="tag">prunes</span>}
    </span>
  );
}

/**
 * The apply under way on the target (on any Ratecard instance), as its lease names it; nothing
 * when none is.
 */
export function ApplyingNow({ apply }: { apply: Target["apply_in_progress"] }) {
  if (!apply) return null;
  return (
    <span className="tag drift-dirty" role="status" title={applyBlockedReason(apply) ?? undefined}>
      {describeApplyInProgress(apply)}
    </span>
  );
}

/** The last probe in a table cell: API generation and module states, or why it failed. */
export function ProbeCell({ probe }: { probe: Target["last_probe"] }) {
  if (!probe) return <span className="muted">never probed</span>;
  if (!probe.reachable || probe.auth === "refused")
    return (
      <span className="target-probe">
        <span className="tag target-bad">{probe.reachable ? "auth refused" : "unreachable"}</span>
        <span className="muted"> {formatDateTime(probe.at)}</span>
      </span>
    );
  return (
    <span className="target-probe">
      <span>API {GENERATION_LABEL[probe.generation]}</span>
      <span className="muted">{describeModules(probe.modules)}</span>
      <span className="muted">{formatDateTime(probe.at)}</span>
    </span>
  );
}

/** The full probe report: what was reached, how, and what CloudKitty said. */
export function ProbeReport({ probe }: { probe: Probe }) {
  return (
    <div className="target-report">
      <p className={probe.reachable && probe.auth !== "refused" ? "" : "alert error"}>
        {describeProbe(probe)}
      </p>
      <dl className="target-facts">
        <dt>Probed</dt>
        <dd>{formatDateTime(probe.at)}</dd>
        <dt>Authentication</dt>
        <dd>{probe.auth}</dd>
        {probe.endpoint && (
          <>
            <dt>Rating endpoint</dt>
            <dd>
              <code>{probe.endpoint}</code>
            </dd>
          </>
        )}
        <dt>API generation</dt>
        <dd>
          {GENERATION_LABEL[probe.generation]}
          {probe.generationEvidence && <span className="muted"> ({probe.generationEvidence})</span>}
        </dd>
        {probe.requestIds.length > 0 && (
          <>
            <dt>CloudKitty request IDs</dt>
            <dd className="mono target-ids">{probe.requestIds.join(" ")}</dd>
          </>
        )}
      </dl>
      {probe.modules && probe.modules.length > 0 && (
        <table className="data-table" aria-label="Rating modules of the target">
          <thead>
            <tr>
              <th scope="col">Module</th>
              <th scope="col">State</th>
              <th scope="col">Priority</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {probe.modules.map((module) => (
              <tr key={module.module_id}>
                <th scope="row">{module.module_id}</th>
                <td>{module.enabled ? "enabled" : "disabled"}</td>
                <td>{module.priority}</td>
                <td>{module.description ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

const COUNT_KINDS = [
  "services",
  "fields",
  "groups",
  "mappings",
  "thresholds",
  "scripts",
  "modules",
] as const;

export function ObjectCounts({
  counts,
  label,
}: {
  counts: Record<(typeof COUNT_KINDS)[number], number>;
  label: string;
}) {
  return (
    <dl className="target-counts" aria-label={label}>
      {COUNT_KINDS.map((kind) => (
        <div key={kind}>
          <dt>{kind}</dt>
          <dd>{counts[kind]}</dd>
        </div>
      ))}
    </dl>
  );
}

/** An import's report: what came in, and what Ratecard could not take as CloudKitty holds it. */
export function ImportReport({ result }: { result: ImportResult }) {
  const { report, conflicts } = result;
  return (
    <div className="target-report" aria-label="Import report" role="region">
      <p>
        {result.merge ? "Merged into" : "Imported into"} Ratecard: revision{" "}
        {result.planned_revision} → {result.revision}, {result.request_count} requests to CloudKitty
        ({result.read_ms} ms to read, {result.write_ms} ms to write).
      </p>
      <ObjectCounts counts={report.counts} label="Objects read from CloudKitty" />
      <h3 className="target-report-heading">
        Duplicates in CloudKitty ({report.duplicates.length})
      </h3>
      {report.duplicates.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul className="target-list">
          {report.duplicates.map((duplicate) => (
            <li key={duplicate.kept.id}>
              {duplicate.kind} <code>{duplicate.parent}</code>
              {duplicate.key !== null && (
                <>
                  {" "}
                  value <code>{duplicate.key}</code>
                </>
              )}
              {duplicate.tenant_id && <> for project {duplicate.tenant_id}</>}: kept{" "}
              <code>{duplicate.kept.id}</code> ({duplicate.kept.type} {duplicate.kept.cost}), left
              out{" "}
              {duplicate.dropped.map((rule) => (
                <span key={rule.id}>
                  <code>{rule.id}</code> ({rule.type} {rule.cost}){" "}
                </span>
              ))}
              {duplicate.costsDiffer && (
                <strong>
                  — their costs differ: CloudKitty prices with whichever it loads last.
                </strong>
              )}
            </li>
          ))}
        </ul>
      )}
      <h3 className="target-report-heading">Skipped ({report.skipped.length})</h3>
      {report.skipped.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul className="target-list">
          {report.skipped.map((item) => (
            <li key={`${item.kind}:${item.id}`}>
              {item.kind} <code>{item.where}</code> (<code>{item.id}</code>): {item.reason}
            </li>
          ))}
        </ul>
      )}
      <h3 className="target-report-heading">Conflicts ({conflicts.length})</h3>
      {conflicts.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul className="target-list">
          {conflicts.map((item) => (
            <li key={`${item.kind}:${item.id}`}>
              {item.kind} <code>{item.where}</code> (<code>{item.id}</code>): {item.reason}
            </li>
          ))}
        </ul>
      )}
      {report.doubles.length > 0 && (
        <>
          <h3 className="target-report-heading">
            Stored by CloudKitty as doubles ({report.doubles.length})
          </h3>
          <ul className="target-list">
            {report.doubles.map((item) => (
              <li key={`${item.kind}:${item.id}:${item.attribute}`}>
                {item.kind} <code>{item.where}</code> {item.attribute}: imported {item.imported},
                probably meant {item.likely}
              </li>
            ))}
          </ul>
        </>
      )}
      {report.notes.length > 0 && (
        <ul className="target-list">
          {report.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function DeleteTargetDialog({ target, onClose }: { target: Target; onClose: () => void }) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const navigate = useNavigate();
  const remove = useMutation(trpc.targets.delete.mutationOptions());
  return (
    <ConfirmDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title={`Delete target ${target.name}?`}
      confirmLabel="Delete target"
      pending={remove.isPending}
      onConfirm={() =>
        void remove.mutateAsync({ target_id: target.target_id }).then(
          async () => {
            toast.success(`Target ${target.name} deleted`);
            onClose();
            await navigate({ to: "/targets" });
            await refreshAll();
          },
          (error: unknown) => toast.error(describeProblem(error).message),
        )
      }
    >
      <p>
        Ratecard forgets {target.name}, its stored secret and its history of runs. CloudKitty is not
        touched: its rules stay as they are.
      </p>
    </ConfirmDialog>
  );
}
