import { useQuery } from "@tanstack/react-query";
import { formatDateTime } from "../lib/accounts";
import {
  describeSummary,
  driftBadge,
  RUN_STATUS_LABEL,
  runOperationRows,
  storedPlanOperations,
  type RunKind,
} from "../lib/targets";
import { useTRPC, type RouterOutputs } from "../trpc";
import { QueryState } from "./QueryState";
import { StoredPlanDiff } from "./TargetPlan";

export type TargetRun = RouterOutputs["targets"]["runs"]["runs"][number];

/** The target's newest run of a kind (null when none), refreshed with the page. */
export function useLastRun(targetId: string, kind: RunKind) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.targets.runs.queryOptions({ target_id: targetId, kind, limit: 1 }),
    select: (data) => data.runs[0] ?? null,
  });
}

/** Last apply: revision, time, who. */
export function LastApply({ targetId }: { targetId: string }) {
  const run = useLastRun(targetId, "apply");
  if (run.isPending) return <span className="muted">…</span>;
  if (run.isError) return <span className="muted">unknown</span>;
  if (!run.data) return <span className="muted">never applied</span>;
  const apply = run.data;
  return (
    <span className="target-probe">
      <span>
        {RUN_STATUS_LABEL[apply.status]}, revision {apply.ratecard_revision ?? "?"}
      </span>
      <span className="muted">{formatDateTime(apply.finished_at ?? apply.started_at)}</span>
      <span className="muted">by {apply.actor ?? "unknown"}</span>
    </span>
  );
}

/** The drift badge from the last drift check. */
export function DriftBadge({ targetId }: { targetId: string }) {
  const run = useLastRun(targetId, "drift");
  if (run.isPending) return <span className="muted">…</span>;
  const badge = driftBadge(run.isError ? null : run.data);
  return (
    <span className="target-probe">
      <span className={`tag drift-${badge.tone}`}>{badge.text}</span>
      {run.data && (
        <span className="muted">{formatDateTime(run.data.finished_at ?? run.data.started_at)}</span>
      )}
    </span>
  );
}

/** Every import, plan, apply and drift check of the target, newest first; one opens below. */
export function RunHistory({
  targetId,
  openRun,
  onOpen,
}: {
  targetId: string;
  openRun: string | undefined;
  onOpen: (runId: string | undefined) => void;
}) {
  const trpc = useTRPC();
  const runs = useQuery(trpc.targets.runs.queryOptions({ target_id: targetId, limit: 100 }));
  return (
    <QueryState query={runs}>
      {(data) =>
        data.runs.length === 0 ? (
          <p className="muted">No run yet: imports, plans, applies and drift checks appear here.</p>
        ) : (
          <>
            <table className="data-table" aria-label="Runs of the target">
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">By</th>
                  <th scope="col">Ratecard revision</th>
                  <th scope="col">Summary</th>
                  <th scope="col">
                    <span className="visually-hidden">Details</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.runs.map((run) => (
                  <tr
                    key={run.run_id}
                    className={run.run_id === openRun ? "just-saved" : undefined}
                  >
                    <td>{formatDateTime(run.started_at)}</td>
                    <td>{run.kind}</td>
                    <td>
                      <span className={`tag run-${run.status}`}>
                        {RUN_STATUS_LABEL[run.status]}
                      </span>
                      {run.error && <div className="muted target-reason">{run.error}</div>}
                    </td>
                    <td>{run.actor ?? "—"}</td>
                    <td>{run.ratecard_revision ?? "—"}</td>
                    <td>
                      {describeSummary(run.summary)}
                      {run.operation_count > 0 && (
                        <span className="muted"> ({run.operation_count} operations)</span>
                      )}
                    </td>
                    <td>
                      <button
                        type="button"
                        className="button small"
                        aria-expanded={run.run_id === openRun}
                        aria-label={`Details of the ${run.kind} run of ${formatDateTime(run.started_at)}`}
                        onClick={() => onOpen(run.run_id === openRun ? undefined : run.run_id)}
                      >
                        {run.run_id === openRun ? "Hide" : "Details"}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {openRun && <RunDetails targetId={targetId} runId={openRun} />}
          </>
        )
      }
    </QueryState>
  );
}

function RunDetails({ targetId, runId }: { targetId: string; runId: string }) {
  const trpc = useTRPC();
  const run = useQuery(trpc.targets.run.queryOptions({ target_id: targetId, run_id: runId }));
  return (
    <section className="target-report" aria-label="Run details">
      <QueryState query={run}>
        {(data) => {
          const rows = runOperationRows(data.operations);
          const planned = data.kind === "plan" ? storedPlanOperations(data.operations) : null;
          return (
            <>
              <h3 className="target-plan-heading">
                {data.kind} run of {formatDateTime(data.started_at)}
              </h3>
              <dl className="target-facts">
                <dt>Run ID</dt>
                <dd>
                  <code>{data.run_id}</code>
                </dd>
                <dt>Outcome</dt>
                <dd>{RUN_STATUS_LABEL[data.status]}</dd>
                <dt>By</dt>
                <dd>{data.actor ?? "—"}</dd>
                <dt>Finished</dt>
                <dd>{formatDateTime(data.finished_at)}</dd>
                {data.plan_id && (
                  <>
                    <dt>Plan applied</dt>
                    <dd>
                      <code>{data.plan_id}</code>
                    </dd>
                  </>
                )}
                {data.target_fingerprint && (
                  <>
                    <dt>Target fingerprint</dt>
                    <dd className="mono target-ids">{data.target_fingerprint}</dd>
                  </>
                )}
                {data.error && (
                  <>
                    <dt>Error</dt>
                    <dd>{data.error}</dd>
                  </>
                )}
              </dl>
              {planned ? (
                <StoredPlanDiff operations={planned} />
              ) : (
                rows.length > 0 && (
                  <table className="data-table" aria-label="Operations of the run">
                    <thead>
                      <tr>
                        <th scope="col">Operation</th>
                        <th scope="col">Object</th>
                        <th scope="col">CloudKitty status</th>
                        <th scope="col">Request ID</th>
                      </tr>
                    </thead>
                    <tbody>
                      {rows.map((row) => (
                        <tr key={row.key}>
                          <td>{row.op}</td>
                          <td>
                            <span className="muted">{row.kind}</span> <code>{row.path}</code>
                            {row.error && <div className="muted target-reason">{row.error}</div>}
                          </td>
                          <td>{row.status || "—"}</td>
                          <td className="mono target-ids">{row.requestId || "—"}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )
              )}
            </>
          );
        }}
      </QueryState>
    </section>
  );
}
