import { Link } from "@tanstack/react-router";
import { useId, useMemo, useState } from "react";
import type { TRuleSetWarning } from "@ratecard/validators";
import { describeCollectorWarning, type CollectorWarning } from "../lib/collector";
import { describeRule, indexRules, type RuleLookups, type RuleRow } from "../lib/rules";
import {
  bySeverity,
  describeWarning,
  summarizeRules,
  type WarningDescription,
  type WarningRule,
} from "../lib/warnings";
import { ErrorPanel } from "./QueryState";

/** A rule set with hundreds of tenant overrides must not push the page's own content out of sight. */
const COLLAPSED_COUNT = 4;

interface WarningsQuery {
  data: { warnings: TRuleSetWarning[] } | undefined;
  error: unknown;
  isError: boolean;
  refetch: () => unknown;
}

/**
 * The traps of rating-concepts.md found in the rules on this page (a rate-only group prices 0, a
 * tenant rule replaces a global one, ...), each naming and linking the rules involved, after the
 * names the collector never reports (nothing of those is priced at all). Nothing is shown while
 * there is no warning.
 */
export function RuleSetWarnings({
  query,
  lookups,
  rules,
  only,
  collectorWarnings = [],
}: {
  query: WarningsQuery;
  lookups: RuleLookups;
  /** The rules the page knows, to name the ones a warning involves. */
  rules: readonly RuleRow[];
  /** Narrows the API's answer further (a field page keeps the warnings about its own rules). */
  only?: (warnings: TRuleSetWarning[]) => TRuleSetWarning[];
  /** The service or fields on this page that the collector's metrics file does not list. */
  collectorWarnings?: readonly CollectorWarning[];
}) {
  const headingId = useId();
  const [showAll, setShowAll] = useState(false);
  const rulesById = useMemo(() => indexRules(rules), [rules]);
  const described = useMemo(() => {
    const warnings = query.data?.warnings ?? [];
    return bySeverity(only ? only(warnings) : warnings).map((warning) =>
      describeWarning(warning, lookups, rulesById),
    );
  }, [query.data, only, lookups, rulesById]);
  const shown = showAll ? described : described.slice(0, COLLAPSED_COUNT);
  const previewService = described.find((warning) => warning.service)?.service?.name;

  const count = collectorWarnings.length + described.length;

  const checkFailed = query.isError && (
    <ErrorPanel
      error={query.error}
      onRetry={() => void query.refetch()}
      title="The rules could not be checked for pricing traps"
    />
  );
  if (count === 0) return checkFailed || null;
  return (
    <>
      {checkFailed}
      <section className="callout warning" role="status" aria-labelledby={headingId}>
        <h2 id={headingId} className="callout-title">
          {count === 1 ? "1 pricing warning" : `${count} pricing warnings`}
        </h2>
        {described.length > 0 && (
          <p className="callout-lead">
            These rules do not price what they may seem to. Check a usage in the{" "}
            <Link to="/preview" search={previewService ? { service: previewService } : {}}>
              price preview
            </Link>
            .
          </p>
        )}
        <ul className="warning-list">
          {collectorWarnings.map((warning) => (
            <CollectorWarningItem key={warning.code} warning={warning} />
          ))}
          {shown.map((warning, index) => (
            <WarningItem key={`${warning.code}-${index}`} warning={warning} />
          ))}
        </ul>
        {described.length > COLLAPSED_COUNT && (
          <button
            type="button"
            className="button small"
            aria-expanded={showAll}
            onClick={() => setShowAll(!showAll)}
          >
            {showAll ? "Show fewer warnings" : `Show all ${described.length} warnings`}
          </button>
        )}
      </section>
    </>
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
  return (
    <li className="warning-item">
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
      <p>{warning.explanation}</p>
      <InvolvedRules warning={warning} />
    </li>
  );
}

/** The first few rules, then a count and the rest in the rules explorer. */
function InvolvedRules({ warning }: { warning: WarningDescription }) {
  const total = warning.rules.length;
  if (total === 0) return null;
  const { shown, hidden, explorer } = summarizeRules(warning);
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
            <InvolvedRule rule={rule} />
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

function InvolvedRule({ rule }: { rule: WarningRule }) {
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
    </>
  );
}
