import { useMutation, useQuery } from "@tanstack/react-query";
import { getRouteApi, useNavigate } from "@tanstack/react-router";
import { Tabs } from "radix-ui";
import { useState } from "react";
import { toast } from "sonner";
import { Breadcrumbs } from "../components/Breadcrumbs";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { CopyableId } from "../components/CopyableId";
import { ErrorPanel, MissingRecord, QueryState } from "../components/QueryState";
import { TargetDialog, type Target } from "../components/TargetDialog";
import {
  ApplyingNow,
  DeleteTargetDialog,
  ImportReport,
  ModeTag,
  ObjectCounts,
  ProbeReport,
  type ImportResult,
} from "../components/TargetParts";
import { DriftPanel } from "../components/TargetDrift";
import { PlanView, StoredPlanDiff, type TargetPlanResult } from "../components/TargetPlan";
import { DriftBadge, LastApply, RunHistory } from "../components/TargetRuns";
import { useRefreshAll } from "../hooks";
import { formatDateTime } from "../lib/accounts";
import { describeProblem } from "../lib/errors";
import {
  applyBlockedReason,
  applyProgressRefresh,
  CHANGING_OPS,
  changeCount,
  describeConnection,
  describeCounts,
  describeProbe,
  describeSummary,
  RUN_STATUS_LABEL,
  storedPlanOperations,
  summaryCounts,
  type PlanOp,
  type TargetTab,
} from "../lib/targets";
import { ReadOnlyNotice, useCan } from "../session/permissions";
import { useTRPC, type RouterOutputs } from "../trpc";
import "../components/targets.css";

const route = getRouteApi("/targets/$targetId");

type ApplyResult = RouterOutputs["targets"]["applyPlan"];

export function TargetsDetailPage() {
  const { manageTargets } = useCan();
  const { targetId } = route.useParams();
  const trpc = useTRPC();
  const target = useQuery({
    ...trpc.targets.get.queryOptions({ target_id: targetId }),
    enabled: manageTargets,
    refetchInterval: (query) => applyProgressRefresh(query.state.data),
  });
  if (!manageTargets)
    return (
      <section>
        <h1>CloudKitty target</h1>
        <ReadOnlyNotice permission="manageTargets" />
      </section>
    );
  return (
    <QueryState
      query={target}
      notFound={<MissingRecord what="Target" backTo="/targets" backLabel="Back to the targets" />}
    >
      {(data) => <TargetDetails target={data} />}
    </QueryState>
  );
}

function TargetDetails({ target }: { target: Target }) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const refreshAll = useRefreshAll();
  const search = route.useSearch();
  const tab: TargetTab = search.tab ?? "overview";
  const setTab = (next: string) =>
    void navigate({
      to: "/targets/$targetId",
      params: { targetId: target.target_id },
      // The plan shown stays in the address while other tabs are looked at.
      search: { tab: next === "overview" ? undefined : (next as TargetTab), plan: search.plan },
      replace: true,
    });
  const showPlan = (plan: string | undefined) =>
    void navigate({
      to: "/targets/$targetId",
      params: { targetId: target.target_id },
      search: { tab: "plan", plan },
      replace: true,
    });
  const openRun = (run: string | undefined) =>
    void navigate({
      to: "/targets/$targetId",
      params: { targetId: target.target_id },
      search: { tab: "runs", run },
      replace: true,
    });
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const probe = useMutation(trpc.targets.probe.mutationOptions());

  const runProbe = () =>
    void probe.mutateAsync({ target_id: target.target_id }).then(
      async (report) => {
        const text = describeProbe(report);
        if (report.reachable && report.auth !== "refused") toast.success(`Probe: ${text}`);
        else toast.error(`Probe: ${text}`);
        await refreshAll();
      },
      (error: unknown) => toast.error(describeProblem(error).message),
    );

  return (
    <section>
      <Breadcrumbs
        crumbs={[{ label: "CloudKitty targets", to: "/targets" }, { label: target.name }]}
      />
      <header className="page-header">
        <div>
          <p className="eyebrow">CloudKitty target</p>
          <h1>{target.name}</h1>
          <CopyableId id={target.target_id} label="target ID" />
        </div>
        <div className="header-actions">
          <button type="button" className="button" disabled={probe.isPending} onClick={runProbe}>
            {probe.isPending ? "Probing…" : "Probe"}
          </button>
          <button type="button" className="button" onClick={() => setEditing(true)}>
            Edit target
          </button>
          <button type="button" className="button danger-outline" onClick={() => setDeleting(true)}>
            Delete target
          </button>
        </div>
      </header>

      <Tabs.Root value={tab} onValueChange={setTab} className="tabs">
        <Tabs.List className="tab-list" aria-label="Parts of the target">
          <Tabs.Trigger value="overview" className="tab">
            Overview
          </Tabs.Trigger>
          <Tabs.Trigger value="import" className="tab">
            Import
          </Tabs.Trigger>
          <Tabs.Trigger value="plan" className="tab">
            Plan and apply
          </Tabs.Trigger>
          <Tabs.Trigger value="drift" className="tab">
            Drift
          </Tabs.Trigger>
          <Tabs.Trigger value="runs" className="tab">
            Runs
          </Tabs.Trigger>
        </Tabs.List>
        <Tabs.Content value="overview" className="panel">
          <Overview target={target} />
        </Tabs.Content>
        <Tabs.Content value="import" className="panel">
          <ImportPanel target={target} />
        </Tabs.Content>
        <Tabs.Content value="plan" className="panel">
          <PlanPanel target={target} planId={search.plan} onPlanned={showPlan} />
        </Tabs.Content>
        <Tabs.Content value="drift" className="panel">
          <DriftPanel targetId={target.target_id} name={target.name} />
        </Tabs.Content>
        <Tabs.Content value="runs" className="panel">
          <h2 className="panel-title">Runs</h2>
          <RunHistory targetId={target.target_id} openRun={search.run} onOpen={openRun} />
        </Tabs.Content>
      </Tabs.Root>
      {editing && <TargetDialog target={target} onClose={() => setEditing(false)} />}
      {deleting && <DeleteTargetDialog target={target} onClose={() => setDeleting(false)} />}
    </section>
  );
}

function Overview({ target }: { target: Target }) {
  return (
    <>
      <h2 className="panel-title">Connection</h2>
      <dl className="target-facts">
        <dt>Mode</dt>
        <dd>
          <ModeTag mode={target.mode} prune={target.prune} />{" "}
          <span className="muted">
            {target.mode === "managed"
              ? "Ratecard may apply its rules to this CloudKitty."
              : "Read only: Ratecard imports from it and plans against it, never writes to it."}
          </span>
        </dd>
        <dt>Connection</dt>
        <dd>{describeConnection(target.connection)}</dd>
        <dt>Secret</dt>
        <dd>
          {target.connection.kind === "noauth"
            ? "none (no authentication)"
            : target.has_secret
              ? "stored encrypted (write-only)"
              : "none stored"}
        </dd>
        <dt>Apply also pushes</dt>
        <dd>
          {[target.push_scripts && "scripts", target.push_modules && "module states"]
            .filter(Boolean)
            .join(" and ") || "rules only (not scripts, not module states)"}
        </dd>
        {target.apply_in_progress && (
          <>
            <dt>Apply in progress</dt>
            <dd>
              <ApplyingNow apply={target.apply_in_progress} />{" "}
              <span className="muted">
                on {target.apply_in_progress.instance ?? "an unknown instance"}
              </span>
            </dd>
          </>
        )}
        <dt>Last apply</dt>
        <dd>
          <LastApply targetId={target.target_id} />
        </dd>
        <dt>Drift</dt>
        <dd>
          <DriftBadge targetId={target.target_id} />
        </dd>
        <dt>Registered</dt>
        <dd>{formatDateTime(target.created_at)}</dd>
        <dt>Changed</dt>
        <dd>{formatDateTime(target.updated_at)}</dd>
      </dl>
      <h2 className="panel-title">Last probe</h2>
      {target.last_probe ? (
        <ProbeReport probe={target.last_probe} />
      ) : (
        <p className="muted">
          Never probed: Probe checks reachability, authentication and the API.
        </p>
      )}
      <h2 className="panel-title">Last import</h2>
      {target.last_import ? (
        <>
          <p>
            {formatDateTime(target.last_import.at)}:{" "}
            {target.last_import.merge ? "merged" : "imported"} into Ratecard revision{" "}
            {target.last_import.revision}; {target.last_import.duplicates} duplicates,{" "}
            {target.last_import.skipped} skipped, {target.last_import.conflicts} conflicts.
          </p>
          <ObjectCounts counts={target.last_import.counts} label="Objects of the last import" />
        </>
      ) : (
        <p className="muted">Nothing imported from this target.</p>
      )}
    </>
  );
}

function ImportPanel({ target }: { target: Target }) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const importRules = useMutation(trpc.targets.import.mutationOptions());
  const [merge, setMerge] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<ImportResult | null>(null);
  const run = () =>
    void importRules.mutateAsync({ target_id: target.target_id, merge }).then(
      async (answer) => {
        setConfirming(false);
        setResult(answer);
        toast.success(`Rules of ${target.name} imported`);
        await refreshAll();
      },
      (error: unknown) => {
        setConfirming(false);
        toast.error(describeProblem(error).message);
      },
    );
  return (
    <>
      <h2 className="panel-title">Import the rules of {target.name}</h2>
      <p className="muted">
        Reads every module, group, service, field, mapping, threshold and script of this CloudKitty
        and stores them in Ratecard with CloudKitty's IDs, in one transaction. CloudKitty is only
        read.
      </p>
      <fieldset className="bare-fieldset target-fieldset">
        <legend className="form-label">Into</legend>
        <label className="choice">
          <input
            type="radio"
            name="import-merge"
            checked={!merge}
            onChange={() => setMerge(false)}
          />{" "}
          An empty Ratecard (refused if Ratecard holds rules)
        </label>
        <label className="choice">
          <input type="radio" name="import-merge" checked={merge} onChange={() => setMerge(true)} />{" "}
          Merge: add what Ratecard lacks, report what differs as conflicts, change no rule of
          Ratecard
        </label>
      </fieldset>
      <button type="button" className="button primary" onClick={() => setConfirming(true)}>
        Import rules
      </button>
      {importRules.isError && !confirming && (
        <ErrorPanel error={importRules.error} title="Import failed" />
      )}
      {result && <ImportReport result={result} />}
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title={merge ? `Merge the rules of ${target.name}?` : `Import the rules of ${target.name}?`}
        confirmLabel={merge ? "Merge rules" : "Import rules"}
        pendingLabel="Importing…"
        tone="primary"
        pending={importRules.isPending}
        onConfirm={run}
      >
        <p>
          {merge
            ? "What Ratecard lacks is added with CloudKitty's IDs; Ratecard's own rules stay as they are."
            : "Ratecard must be empty: every rule of this CloudKitty is stored with its IDs."}{" "}
          The change is recorded in Ratecard's history.
        </p>
      </ConfirmDialog>
    </>
  );
}

function PlanPanel({
  target,
  planId,
  onPlanned,
}: {
  target: Target;
  /** The plan in the address: shown from its stored run when this page did not just make it. */
  planId: string | undefined;
  onPlanned: (planId: string | undefined) => void;
}) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const plan = useMutation(trpc.targets.plan.mutationOptions());
  const apply = useMutation(trpc.targets.applyPlan.mutationOptions());
  const [result, setResult] = useState<TargetPlanResult | null>(null);
  const [applied, setApplied] = useState<ApplyResult | null>(null);
  const [confirming, setConfirming] = useState(false);
  const fresh = result && result.plan_id === planId ? result : null;
  const stored = useQuery({
    ...trpc.targets.run.queryOptions({ target_id: target.target_id, run_id: planId ?? "" }),
    enabled: Boolean(planId) && !fresh,
  });
  const storedPlan =
    !fresh && planId && stored.data?.kind === "plan"
      ? storedPlanOperations(stored.data.operations)
      : null;
  const run = () => {
    setApplied(null);
    apply.reset();
    void plan.mutateAsync({ target_id: target.target_id }).then(
      (answer) => {
        setResult(answer);
        onPlanned(answer.plan_id);
      },
      () => {
        setResult(null);
        onPlanned(undefined);
      },
    );
  };
  const counts = (
    fresh ? fresh.counts : storedPlan && stored.data ? summaryCounts(stored.data.summary) : {}
  ) as Partial<Record<PlanOp, number>>;
  const shownPlanId = fresh ? fresh.plan_id : storedPlan ? planId : undefined;
  const changes = changeCount(counts);
  // Another apply holds the target (this page's own shows as the pending dialog instead).
  const blocked = apply.isPending ? null : applyBlockedReason(target.apply_in_progress);
  const applyPlan = (planToApply: string) =>
    void apply.mutateAsync({ target_id: target.target_id, plan_id: planToApply }).then(
      async (answer) => {
        setConfirming(false);
        setApplied(answer);
        // The plan is carried out (or partly): what CloudKitty holds now needs a new plan.
        setResult(null);
        onPlanned(undefined);
        if (answer.status === "ok" || answer.status === "empty")
          toast.success(`Plan applied to ${target.name}`);
        else toast.error(`Apply to ${target.name} ${answer.status}: ${answer.error ?? ""}`);
        await refreshAll();
      },
      async () => {
        setConfirming(false);
        await refreshAll();
      },
    );
  return (
    <>
      <h2 className="panel-title">Plan against {target.name}</h2>
      <p className="muted">
        Reads this CloudKitty and lists what it would need to hold Ratecard's current rules. Read
        only: nothing changes on either side until the plan is applied.
      </p>
      <div className="header-actions">
        <button type="button" className="button primary" disabled={plan.isPending} onClick={run}>
          {plan.isPending ? "Planning…" : shownPlanId || applied ? "Plan again" : "Plan"}
        </button>
        {shownPlanId && changes > 0 && target.mode === "managed" && (
          <button
            type="button"
            className="button"
            disabled={blocked !== null}
            title={blocked ?? undefined}
            aria-describedby={blocked ? "apply-blocked" : undefined}
            onClick={() => setConfirming(true)}
          >
            Apply this plan
          </button>
        )}
      </div>
      {blocked && (
        <p className="alert note" role="note" id="apply-blocked">
          {blocked}
        </p>
      )}
      {shownPlanId && changes > 0 && target.mode !== "managed" && (
        <p className="alert note" role="note">
          This target is an import source: Ratecard never writes to it. Make it managed (Edit
          target) to apply.
        </p>
      )}
      {planId && !fresh && stored.isError && (
        <ErrorPanel error={stored.error} title="This plan cannot be shown" />
      )}
      {plan.isError && <ErrorPanel error={plan.error} title="Planning failed" />}
      {apply.isError && <ErrorPanel error={apply.error} title="Apply refused" />}
      {applied && <ApplyReport result={applied} />}
      {fresh && <PlanView plan={fresh} />}
      {storedPlan && stored.data && (
        <div className="target-plan">
          <p className="target-plan-summary" role="status">
            <strong>
              {changes === 0
                ? "Nothing to change: CloudKitty held Ratecard's rules."
                : `${changes} ${changes === 1 ? "change" : "changes"}: ${describeCounts(counts, CHANGING_OPS)}.`}
            </strong>
          </p>
          <p className="muted">
            Plan <code>{planId}</code>, made {formatDateTime(stored.data.started_at)} by{" "}
            {stored.data.actor ?? "unknown"} against Ratecard revision{" "}
            {stored.data.ratecard_revision ?? "?"}. Apply refuses it if Ratecard or CloudKitty
            changed since: plan again then.
          </p>
          <StoredPlanDiff operations={storedPlan} />
        </div>
      )}
      {shownPlanId && (
        <ConfirmDialog
          open={confirming}
          onOpenChange={setConfirming}
          title={`Apply the plan to ${target.name}?`}
          confirmLabel="Apply to CloudKitty"
          pendingLabel="Applying…"
          pending={apply.isPending}
          onConfirm={() => applyPlan(shownPlanId)}
        >
          <p>
            <strong>
              {changes} {changes === 1 ? "change" : "changes"}:{" "}
              {describeCounts(counts, CHANGING_OPS)}.
            </strong>{" "}
            CloudKitty bills with them from its next collect period.
          </p>
          <p>
            The change is <strong>not atomic on CloudKitty's side</strong>: CloudKitty has no
            transaction across requests. Apply stops at the first failure and does not roll back
            what was already done; planning and applying again finishes the job.
          </p>
          <p>
            Each change is one request to CloudKitty (tens of milliseconds each on CloudKitty 17):
            thousands of changes take minutes. If this page loses the answer, the run history shows
            what was done.
          </p>
          {(counts.unmanaged ?? 0) > 0 && (
            <p>
              {counts.unmanaged} objects only in CloudKitty are left alone (the target does not
              prune).
            </p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}

function ApplyReport({ result }: { result: ApplyResult }) {
  const done = result.status === "ok" || result.status === "empty";
  return (
    <section className="target-report" aria-label="Apply report">
      <p className={done ? "" : "alert error"} role="status">
        <strong>Apply {RUN_STATUS_LABEL[result.status]}</strong>:{" "}
        {describeSummary({ counts: result.counts })}
        {result.error && <> — {result.error}</>}
      </p>
      {result.operations.length > 0 && (
        <table className="data-table" aria-label="Operations applied">
          <thead>
            <tr>
              <th scope="col">Operation</th>
              <th scope="col">Object</th>
              <th scope="col">Outcome</th>
              <th scope="col">CloudKitty status</th>
              <th scope="col">Request ID</th>
            </tr>
          </thead>
          <tbody>
            {result.operations.map((operation, index) => (
              <tr key={`${index}:${operation.path}`}>
                <td>{operation.op}</td>
                <td>
                  <span className="muted">{operation.kind}</span> <code>{operation.path}</code>
                  {operation.error && <div className="muted target-reason">{operation.error}</div>}
                </td>
                <td>{operation.outcome.replace("_", " ")}</td>
                <td>{operation.status ?? "—"}</td>
                <td className="mono target-ids">{operation.request_id ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
