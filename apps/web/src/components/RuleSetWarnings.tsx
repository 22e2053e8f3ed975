import { useMutation, useQuery } from "@tanstack/react-query";
import { Link, useRouterState } from "@tanstack/react-router";
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { WARNING_NOTE_MAX_LENGTH, type TWarningScopeInput } from "@ratecard/validators";
import { useRefreshAll } from "../hooks";
import { describeCollectorWarning, type CollectorWarning } from "../lib/collector";
import { describeProblem } from "../lib/errors";
import { describeRule, indexRules, type RuleLookups } from "../lib/rules";
import { windowRowToRuleRow } from "../lib/rule-window";
import {
  acknowledgedBy,
  bySeverity,
  describeWarning,
  splitAcknowledged,
  summarizeRules,
  warningAnchor,
  warningKeyOfAnchor,
  type WarningDescription,
  type WarningRule,
} from "../lib/warnings";
import { useCan } from "../session/permissions";
import { useTRPC } from "../trpc";
import { EditRuleInPlaceButton } from "./InPlaceRuleEditor";
import { ErrorPanel } from "./QueryState";
import "./warnings.css";

/** A rule set with hundreds of tenant overrides must not push the page's own content out of sight. */
const COLLAPSED_COUNT = 4;

/**
 * The traps of rating-concepts.md found in the rules of this page's service, field or group (a
 * rate-only group prices 0, a tenant rule replaces a global one, ...), each naming and linking the
 * first rules involved, after the names the collector never reports (nothing of those is priced at
 * all). The server picks the warnings and the rules they name (console.warnings), so the page
 * never loads all its rules for them. Nothing is shown while there is no warning.
 */
export function RuleSetWarnings({
  scope,
  lookups,
  collectorWarnings = [],
}: {
  /** A service's, a group's, or a field's (the warnings that involve its rules). */
  scope: TWarningScopeInput;
  lookups: RuleLookups;
  /** The service or fields on this page that the collector's metrics file does not list. */
  collectorWarnings?: readonly CollectorWarning[];
}) {
  const trpc = useTRPC();
  // A role without ratecard:warnings sees only the collector's warnings (the server would refuse).
  const { seeWarnings } = useCan();
  const query = useQuery({ ...trpc.console.warnings.queryOptions(scope), enabled: seeWarnings });
  const headingId = useId();
  const [showAll, setShowAll] = useState(false);
  const [showAcknowledged, setShowAcknowledged] = useState(false);
  const described = useMemo(() => {
    const warnings = query.data?.warnings ?? [];
    return bySeverity(warnings).map((warning) =>
      describeWarning(warning, lookups, indexRules(warning.rules.map(windowRowToRuleRow))),
    );
  }, [query.data, lookups]);
  const { open, acknowledged } = useMemo(() => splitAcknowledged(described), [described]);
  const previewService = described.find((warning) => warning.service)?.service?.name;

  // A badge on a rule's row links here (#warning-…): that warning is shown wherever it is folded,
  // until the operator folds or unfolds something themselves.
  const hash = useRouterState({ select: (state) => state.location.hash });
  const [handledTarget, setHandledTarget] = useState<string | undefined>();
  const targetKey = warningKeyOfAnchor(
    hash,
    described.map((warning) => warning.key),
  );
  const pendingTarget = targetKey !== handledTarget ? targetKey : undefined;
  const targetIndex = pendingTarget
    ? open.findIndex((warning) => warning.key === pendingTarget)
    : -1;
  const expandAll = showAll || targetIndex >= COLLAPSED_COUNT;
  const expandAcknowledged =
    showAcknowledged || (pendingTarget !== undefined && targetIndex === -1);
  const shown = expandAll ? open : open.slice(0, COLLAPSED_COUNT);
  useEffect(() => {
    if (!targetKey) return;
    const frame = requestAnimationFrame(() => {
      const element = document.getElementById(warningAnchor(targetKey));
      element?.scrollIntoView({ block: "center" });
      element?.focus({ preventScroll: true });
    });
    return () => cancelAnimationFrame(frame);
  }, [targetKey]);

  const count = collectorWarnings.length + open.length;

  const checkFailed = query.isError && (
    <ErrorPanel
      error={query.error}
      onRetry={() => void query.refetch()}
      title="The rules could not be checked for pricing traps"
    />
  );
  if (count === 0 && acknowledged.length === 0) return checkFailed || null;
  return (
    <>
      {checkFailed}
      {count > 0 && (
        <section className="callout warning" role="status" aria-labelledby={headingId}>
          <h2 id={headingId} className="callout-title">
            {count === 1 ? "1 pricing warning" : `${count} pricing warnings`}
          </h2>
          {open.length > 0 && (
            <p className="callout-lead">
              These rules do not price what they may seem to. Check a usage in the{" "}
              <Link to="/preview" search={previewService ? { service: previewService } : {}}>
                price preview
              </Link>
              . A warning about something intended can be acknowledged with a note.
            </p>
          )}
          <ul className="warning-list">
            {collectorWarnings.map((warning) => (
              <CollectorWarningItem key={warning.code} warning={warning} />
            ))}
            {shown.map((warning, index) => (
              <WarningItem key={warning.key ?? `${warning.code}-${index}`} warning={warning} />
            ))}
          </ul>
          {open.length > COLLAPSED_COUNT && (
            <button
              type="button"
              className="button small"
              aria-expanded={expandAll}
              onClick={() => {
                setShowAll(!expandAll);
                setHandledTarget(targetKey);
              }}
            >
              {expandAll ? "Show fewer warnings" : `Show all ${open.length} warnings`}
            </button>
          )}
        </section>
      )}
      {acknowledged.length > 0 && (
        <AcknowledgedWarnings
          warnings={acknowledged}
          expanded={expandAcknowledged}
          onExpandedChange={(expanded) => {
            setShowAcknowledged(expanded);
            setHandledTarget(targetKey);
          }}
        />
      )}
    </>
  );
}

/** Warnings marked intended, folded into one line ("2 acknowledged warnings") with their notes. */
function AcknowledgedWarnings({
  warnings,
  expanded,
  onExpandedChange,
}: {
  warnings: WarningDescription[];
  expanded: boolean;
  onExpandedChange: (expanded: boolean) => void;
}) {
  const label =
    warnings.length === 1 ? "1 acknowledged warning" : `${warnings.length} acknowledged warnings`;
  return (
    <section className="callout acknowledged" aria-label="Acknowledged pricing warnings">
      <details open={expanded} onToggle={(event) => onExpandedChange(event.currentTarget.open)}>
        <summary>{label}</summary>
        <ul className="warning-list">
          {warnings.map((warning, index) => (
            <WarningItem key={warning.key ?? `${warning.code}-${index}`} warning={warning} />
          ))}
        </ul>
      </details>
    </section>
  );
}
function CollectorWarningItem({ warning }: { warning: CollectorWarning }) {
  const { title, explanation } = describeCollectorWarning(warning);
  return (
    <li className="warning-item">
      <p className="warning-title">{title}</p>
      <p>{explanation}</p>
      {warning.code === "fields-not-collected" && warning.fields.length > 1 && (
        <p className="warning-where">
          Fields{" "}
          {warning.fields.map((field, index) => (
            <span key={field.id}>
              {index > 0 && ", "}
              <Link to="/hashmap/fields/$fieldId" params={{ fieldId: field.id }}>
                {field.name}
              </Link>
            </span>
          ))}
        </p>
      )}
    </li>
  );
}

function WarningItem({ warning }: { warning: WarningDescription }) {
  const { acknowledgeWarnings } = useCan();
  const acknowledgement = warning.acknowledgement;
  const acknowledged = Boolean(acknowledgement && !acknowledgement.reopened);
  return (
    <li
      className={acknowledged ? "warning-item is-acknowledged" : "warning-item"}
      {...(warning.key && { id: warningAnchor(warning.key), tabIndex: -1 })}
    >
      <p className="warning-title">{warning.title}</p>
      <p className="warning-where">
        {warning.service && (
          <>
            Service{" "}
            <Link to="/hashmap/services/$serviceId" params={{ serviceId: warning.service.id }}>
              {warning.service.name}
            </Link>
            {" · "}
          </>
        )}
        {warning.group.id ? (
          <>
            Group{" "}
            <Link to="/hashmap/groups/$groupId" params={{ groupId: warning.group.id }}>
              {warning.group.name}
            </Link>
          </>
        ) : (
          "Default group (rules without a group)"
        )}
        {" · "}
        {warning.tenant ? `Tenant ${warning.tenant}` : "All tenants"}
      </p>
      {acknowledgement && (
        <div className="warning-acknowledgement">
          <p>
            {acknowledgement.reopened
              ? "Acknowledged before, open again: a rule involved changed since. "
              : ""}
            Acknowledged by {acknowledgedBy(acknowledgement)}:
          </p>
          <blockquote className="warning-note">{acknowledgement.note}</blockquote>
        </div>
      )}
      {!acknowledged && <p>{warning.explanation}</p>}
      <InvolvedRules warning={warning} />
      {acknowledgeWarnings && warning.key && warning.fingerprint && (
        <WarningActions
          warning={warning}
          warningKey={warning.key}
          fingerprint={warning.fingerprint}
        />
      )}
    </li>
  );
}

/** Acknowledge (with a note) an open warning, or withdraw the acknowledgement of one. */
function WarningActions({
  warning,
  warningKey,
  fingerprint,
}: {
  warning: WarningDescription;
  warningKey: string;
  fingerprint: string;
}) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const noteId = useId();
  const errorId = useId();
  const toggle = useRef<HTMLButtonElement>(null);
  const acknowledgement = warning.acknowledgement;
  const acknowledged = Boolean(acknowledgement && !acknowledgement.reopened);
  const [editing, setEditing] = useState(false);
  const [note, setNote] = useState(acknowledgement?.note ?? "");
  const [failure, setFailure] = useState<string | null>(null);
  const acknowledge = useMutation(trpc.warnings.acknowledge.mutationOptions());
  const withdraw = useMutation(trpc.warnings.withdraw.mutationOptions());

  const close = () => {
    setEditing(false);
    setFailure(null);
    requestAnimationFrame(() => toggle.current?.focus());
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!note.trim()) {
      setFailure("Say why this warning is intended.");
      return;
    }
    try {
      await acknowledge.mutateAsync({ warning_key: warningKey, fingerprint, note: note.trim() });
      setEditing(false);
      setFailure(null);
      toast.success("Warning acknowledged");
      await refreshAll();
    } catch (error) {
      setFailure(describeProblem(error).message);
    }
  };
  const withdrawAcknowledgement = async () => {
    try {
      await withdraw.mutateAsync({ warning_key: warningKey });
      toast.success("Acknowledgement withdrawn: the warning is open again");
      await refreshAll();
    } catch (error) {
      toast.error(describeProblem(error).message);
    }
  };

  if (acknowledged) {
    return (
      <p className="warning-actions">
        <button
          type="button"
          className="button small"
          disabled={withdraw.isPending}
          onClick={() => void withdrawAcknowledgement()}
          aria-label={`Withdraw the acknowledgement: ${warning.title}`}
        >
          Withdraw acknowledgement
        </button>
      </p>
    );
  }
  if (!editing) {
    return (
      <p className="warning-actions">
        <button
          ref={toggle}
          type="button"
          className="button small"
          aria-expanded={false}
          onClick={() => setEditing(true)}
          aria-label={`${acknowledgement ? "Acknowledge again" : "Acknowledge"}: ${warning.title}`}
        >
          {acknowledgement ? "Acknowledge again…" : "Acknowledge…"}
        </button>
      </p>
    );
  }
  return (
    <form className="warning-acknowledge-form" onSubmit={(event) => void submit(event)}>
      <label htmlFor={noteId}>Why is this intended?</label>
      <textarea
        id={noteId}
        className="input"
        rows={2}
        value={note}
        maxLength={WARNING_NOTE_MAX_LENGTH}
        // The operator asked to write the note: the field is where they are going.
        autoFocus
        aria-invalid={failure ? true : undefined}
        aria-describedby={failure ? errorId : undefined}
        placeholder="e.g. acme's negotiated price, contract 2026-17"
        onChange={(event) => setNote(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") close();
        }}
      />
      {failure && (
        <p id={errorId} className="form-error" role="alert">
          {failure}
        </p>
      )}
      <div className="warning-actions">
        <button type="submit" className="button small primary" disabled={acknowledge.isPending}>
          Acknowledge
        </button>
        <button type="button" className="button small" onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * The first few rules, then a count and the rest in the rules explorer. When it names them all, each
 * rule can also be edited in place: a warning about many rules is fixed in the explorer, and its
 * few shown rules keep the Tab presses needed to pass it bounded.
 */
function InvolvedRules({ warning }: { warning: WarningDescription }) {
  const { total, shown, hidden, explorer } = summarizeRules(warning);
  if (total === 0) return null;
  const editable = hidden === 0;
  return (
    <>
      {hidden > 0 && (
        <p>
          {total} rules involved; the first {shown.length}:
        </p>
      )}
      <ul className="warning-rules" aria-label={`Rules involved (${total})`}>
        {shown.map((rule) => (
          <li key={rule.id}>
            <InvolvedRule rule={rule} editable={editable} />
          </li>
        ))}
      </ul>
      {explorer && (
        <p>
          And {hidden} more.{" "}
          <Link to="/hashmap/rules" search={explorer}>
            Show all {total} in the rules explorer
          </Link>
        </p>
      )}
    </>
  );
}

function InvolvedRule({ rule, editable }: { rule: WarningRule; editable: boolean }) {
  const role = rule.role && <span className="rule-role">{rule.role}: </span>;
  if (!rule.row) {
    return (
      <>
        {role}
        rule <code>{rule.id}</code>
      </>
    );
  }
  const { row } = rule;
  return (
    <>
      {role}
      <Link
        to={row.kind === "mapping" ? "/hashmap/mappings/$ruleId" : "/hashmap/thresholds/$ruleId"}
        params={{ ruleId: row.id }}
      >
        {describeRule(row)}
      </Link>
      <span className="muted">
        {" "}
        (cost <span className="mono">{row.cost}</span>)
      </span>
      {editable && (
        <EditRuleInPlaceButton kind={row.kind} ruleId={row.id} description={describeRule(row)} />
      )}
    </>
  );
}
