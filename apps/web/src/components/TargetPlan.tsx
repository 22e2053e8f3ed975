import { useMemo, useState } from "react";
import {
  CHANGING_OPS,
  changeCount,
  describeCounts,
  filterOperations,
  groupPlan,
  PLAN_OPS,
  type PlanGroup,
  type PlanOp,
  type PlanOperation,
} from "../lib/targets";
import type { RouterOutputs } from "../trpc";

export type TargetPlanResult = RouterOutputs["targets"]["plan"];

const REPORTED_ONLY: readonly PlanOp[] = ["unmanaged", "duplicate", "frozen"];

/**
 * A plan as a readable diff grouped by service: each object's line with its attributes
 * before → after, counts per service and in all. Objects only in CloudKitty (unmanaged) and
 * CloudKitty's duplicates are listed apart from the changes, behind a switch.
 */
export function PlanView({ plan }: { plan: TargetPlanResult }) {
  const [showReported, setShowReported] = useState(false);
  const operations = plan.operations as PlanOperation[];
  const counts = plan.counts as Partial<Record<PlanOp, number>>;
  const reported = REPORTED_ONLY.reduce((sum, op) => sum + (counts[op] ?? 0), 0);
  const shown = useMemo(
    () =>
      groupPlan(
        filterOperations(
          operations,
          PLAN_OPS.filter((op) => showReported || !REPORTED_ONLY.includes(op)),
        ),
      ),
    [operations, showReported],
  );
  const changes = changeCount(counts);
  return (
    <div className="target-plan">
      <p className="target-plan-summary" role="status">
        {changes === 0 ? (
          <strong>Nothing to change: CloudKitty holds Ratecard's rules.</strong>
        ) : (
          <strong>
            {changes} {changes === 1 ? "change" : "changes"}: {describeCounts(counts, CHANGING_OPS)}
            .
          </strong>
        )}{" "}
        {reported > 0 && <>Also reported: {describeCounts(counts, REPORTED_ONLY)}.</>}
      </p>
      <p className="muted">
        Plan <code>{plan.plan_id}</code>, against Ratecard revision {plan.ratecard_revision};{" "}
        {plan.request_count} requests to CloudKitty.
        {plan.doublePrecision &&
          " CloudKitty stores costs as doubles here (SQLite): costs were compared at double precision."}
        {plan.prune
          ? " The target prunes: objects only in CloudKitty are deleted."
          : " The target does not prune: objects only in CloudKitty are left alone (unmanaged)."}
      </p>
      {plan.generation === "23+" && (
        <p className="muted" role="note">
          CloudKitty 23 or later: rules are sent with their validity dates, scheduled ones included.
          A started rule cannot be changed there except its end, so a price change is a{" "}
          <em>supersede</em>: the old rule ends at T and Ratecard&apos;s starts at T (no gap, no
          overlap; T is Ratecard&apos;s start, or the moment of the apply). <em>Frozen</em> lines
          are changes CloudKitty 23 refuses on a started rule: listed, not applied.
        </p>
      )}
      {plan.notes.length > 0 && (
        <ul className="target-list muted">
          {plan.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
      {reported > 0 && (
        <label className="choice">
          <input
            type="checkbox"
            checked={showReported}
            onChange={(event) => setShowReported(event.target.checked)}
          />{" "}
          Show what is only reported ({describeCounts(counts, REPORTED_ONLY)})
        </label>
      )}
      {plan.skipped.length > 0 && (
        <div className="alert note" role="note">
          <p>
            <strong>Not comparable ({plan.skipped.length}):</strong>
          </p>
          <ul className="target-list">
            {plan.skipped.map((item) => (
              <li key={`${item.kind}:${item.id}`}>
                {item.kind} <code>{item.where}</code>: {item.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
      {shown.map((group) => (
        <PlanGroupTable key={`${group.section}:${group.heading}`} group={group} />
      ))}
    </div>
  );
}

/** A stored plan's operations (a plan run opened in the history) as the same diff. */
export function StoredPlanDiff({ operations }: { operations: PlanOperation[] }) {
  const groups = useMemo(() => groupPlan(operations), [operations]);
  if (groups.length === 0) return <p className="muted">Nothing to change.</p>;
  return (
    <>
      {groups.map((group) => (
        <PlanGroupTable key={`${group.section}:${group.heading}`} group={group} />
      ))}
    </>
  );
}

function PlanGroupTable({ group }: { group: PlanGroup }) {
  const title = group.section === "service" ? `Service ${group.heading}` : group.heading;
  return (
    <section className="target-plan-group" aria-label={title}>
      <h3 className="target-plan-heading">
        {title} <span className="muted">({describeCounts(group.counts)})</span>
      </h3>
      <table className="data-table target-diff" aria-label={`Changes to ${title}`}>
        <thead>
          <tr>
            <th scope="col">Change</th>
            <th scope="col">Object</th>
            <th scope="col">Before → after</th>
          </tr>
        </thead>
        <tbody>
          {group.lines.map((line) => (
            <tr key={line.key} className={`plan-${line.op}`}>
              <td>
                <span className={`tag plan-op plan-op-${line.op}`}>{line.op}</span>
              </td>
              <td>
                <span className="muted">{line.kind}</span> <code>{line.label}</code>
                {line.reason && <div className="muted target-reason">{line.reason}</div>}
              </td>
              <td>
                {line.changes.length === 0 ? (
                  <span className="muted">—</span>
                ) : (
                  <ul className="target-changes">
                    {line.changes.map((change) => (
                      <li key={change.attribute}>
                        <span className="target-attribute">{change.attribute}</span>{" "}
                        {change.before !== undefined && <del>{change.before}</del>}
                        {change.before !== undefined && change.after !== undefined && " → "}
                        {change.after !== undefined && <ins>{change.after}</ins>}
                      </li>
                    ))}
                  </ul>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
