import { useMutation } from "@tanstack/react-query";
import { useRefreshAll } from "../hooks";
import { formatDateTime } from "../lib/accounts";
import { describeDrift, DRIFT_LABEL, formatScalar } from "../lib/targets";
import { useTRPCClient, type RouterOutputs } from "../trpc";
import { ErrorPanel } from "./QueryState";

type DriftResult = RouterOutputs["targets"]["drift"];

/**
 * The drift check, run when asked (it reads the whole target and is kept as a run): how
 * CloudKitty differs from what was last applied and from Ratecard now, each with both values.
 */
export function DriftPanel({ targetId, name }: { targetId: string; name: string }) {
  const client = useTRPCClient();
  const refreshAll = useRefreshAll();
  // An action, not a query kept fresh: each check reads the whole target and is stored as a run.
  const check = useMutation({
    mutationFn: () => client.targets.drift.query({ target_id: targetId }),
    // The badge and the run history show the new check.
    onSuccess: () => refreshAll(),
  });
  return (
    <>
      <h2 className="panel-title">Drift of {name}</h2>
      <p className="muted">
        Reads this CloudKitty and compares it with the rules last applied to it and with Ratecard's
        rules now. Read only; kept in the run history.
      </p>
      <button
        type="button"
        className="button primary"
        disabled={check.isPending}
        onClick={() => check.mutate()}
      >
        {check.isPending ? "Checking…" : check.data ? "Check again" : "Check drift"}
      </button>
      {check.isError && <ErrorPanel error={check.error} title="The drift check failed" />}
      {check.data && <DriftReport drift={check.data} />}
    </>
  );
}

function DriftReport({ drift }: { drift: DriftResult }) {
  const none = drift.differences.length === 0;
  return (
    <section className="target-report" aria-label="Drift report">
      <p role="status">
        <span className={`tag drift-${none ? "clean" : "dirty"}`}>
          {none
            ? "no drift"
            : `${drift.differences.length} ${drift.differences.length === 1 ? "difference" : "differences"}`}
        </span>{" "}
        {!none && describeDrift(drift.counts)}
      </p>
      <p className="muted">
        Checked {formatDateTime(drift.checked_at)};{" "}
        {drift.last_apply
          ? `last apply ${formatDateTime(drift.last_apply.finished_at)} by ${drift.last_apply.actor ?? "unknown"} (Ratecard revision ${drift.last_apply.ratecard_revision ?? "?"})`
          : "never applied: compared with Ratecard only"}
        .
        {drift.double_precision &&
          " CloudKitty stores costs as doubles here (SQLite): costs were compared at double precision."}
      </p>
      {drift.notes.length > 0 && (
        <ul className="target-list muted">
          {drift.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
      {!none && (
        <table className="data-table" aria-label="Differences">
          <thead>
            <tr>
              <th scope="col">Difference</th>
              <th scope="col">Object</th>
              <th scope="col">Expected → in CloudKitty</th>
              <th scope="col">Compared with</th>
            </tr>
          </thead>
          <tbody>
            {drift.differences.map((difference, index) => (
              <tr key={`${index}:${difference.kind}:${difference.path}`}>
                <td>{DRIFT_LABEL[difference.kind] ?? difference.kind}</td>
                <td>
                  <span className="muted">{difference.object_kind}</span>{" "}
                  <code>{difference.path}</code>
                  {difference.note && <div className="muted target-reason">{difference.note}</div>}
                </td>
                <td>
                  {difference.field ? (
                    <span className="target-changes">
                      <span className="target-attribute">{difference.field}</span>{" "}
                      <del>{formatScalar(difference.expected)}</del> →{" "}
                      <ins>{formatScalar(difference.actual)}</ins>
                    </span>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td>{difference.against === "last_apply" ? "last apply" : "Ratecard now"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
