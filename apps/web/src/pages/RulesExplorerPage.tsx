import { getRouteApi, Link, useNavigate } from "@tanstack/react-router";
import { useId, useState, type ReactNode } from "react";
import { FlatRateHelp, GroupHelp, TenantHelp, ThresholdHelp } from "../components/Concepts";
import { DebouncedInput } from "../components/DebouncedInput";
import { EmptyState, NoMatch } from "../components/EmptyState";
import { ErrorPanel } from "../components/QueryState";
import { RuleList, RuleStatusSelect } from "../components/RuleList";
import { RulePanelLink, type NewRuleContext } from "../components/RuleTable";
import { useLookups } from "../hooks";
import { explorerWindowFilters } from "../lib/rule-window";
import { hasActiveFilter, type ExplorerSearch } from "../lib/rules";
import { Allowed } from "../session/permissions";

const route = getRouteApi("/hashmap/rules");

export function RulesExplorerPage() {
  const search = route.useSearch();
  const navigate = useNavigate({ from: "/hashmap/rules" });
  const { lookups, error: lookupError, refetch: refetchLookups } = useLookups();
  // Remounts the text inputs when the filters are cleared from outside them.
  const [resetCount, setResetCount] = useState(0);

  const update = (patch: Partial<ExplorerSearch>) =>
    void navigate({ search: (previous) => ({ ...previous, ...patch }), replace: true });
  const clearFilters = async () => {
    await navigate({ search: { sort: search.sort }, replace: true });
    setResetCount((count) => count + 1);
  };

  // A rule created from a filtered view starts attached to what the filters name.
  const newRule: NewRuleContext = {
    ...(search.field_id
      ? { parent: { field_id: search.field_id } }
      : search.service_id
        ? { parent: { service_id: search.service_id } }
        : {}),
    ...(search.group_id && !search.no_group && { groupId: search.group_id }),
  };

  const filtered = hasActiveFilter(search);
  const parentValue = search.field_id
    ? `field:${search.field_id}`
    : search.service_id
      ? `service:${search.service_id}`
      : "";
  const groupValue = search.no_group ? "none" : (search.group_id ?? "");

  return (
    <section>
      <header className="page-header">
        <div>
          <h1>Rules explorer</h1>
          <p className="lead">Every mapping and threshold, of every service, field and group.</p>
        </div>
        <Allowed to="writeRules">
          <div className="header-actions">
            <RulePanelLink
              target={{ kind: "mapping" }}
              context={newRule}
              className="button primary"
            >
              New mapping
            </RulePanelLink>
            <RulePanelLink target={{ kind: "threshold" }} context={newRule} className="button">
              New threshold
            </RulePanelLink>
          </div>
        </Allowed>
      </header>
      <div className="help-row">
        <FlatRateHelp />
        <GroupHelp />
        <TenantHelp />
        <ThresholdHelp />
      </div>
      <div className="panel">
        <RuleList
          label="Rules"
          windowFilters={explorerWindowFilters(search)}
          matchHeader="Value / level"
          showKind
          showAttachedTo
          warningsPanel="service page"
          newRule={newRule}
          filters={
            <form
              className="filters"
              role="search"
              aria-label="Filter rules"
              onSubmit={(event) => event.preventDefault()}
            >
              <FilterField label="Kind">
                {(id) => (
                  <select
                    id={id}
                    className="input"
                    value={search.kind ?? ""}
                    onChange={(event) =>
                      update({ kind: (event.target.value || undefined) as ExplorerSearch["kind"] })
                    }
                  >
                    <option value="">Mappings and thresholds</option>
                    <option value="mappings">Mappings</option>
                    <option value="thresholds">Thresholds</option>
                  </select>
                )}
              </FilterField>
              <FilterField label="Attached to">
                {(id) => (
                  <select
                    id={id}
                    className="input"
                    value={parentValue}
                    onChange={(event) => {
                      const [kind, id] = event.target.value.split(":");
                      update({
                        service_id: kind === "service" ? id : undefined,
                        field_id: kind === "field" ? id : undefined,
                      });
                    }}
                  >
                    <option value="">Any service or field</option>
                    {lookups.services.map((service) => (
                      <optgroup key={service.service_id} label={service.name}>
                        <option value={`service:${service.service_id}`}>
                          {service.name} (service rules)
                        </option>
                        {lookups.fields
                          .filter((field) => field.service_id === service.service_id)
                          .map((field) => (
                            <option key={field.field_id} value={`field:${field.field_id}`}>
                              {service.name} › {field.name}
                            </option>
                          ))}
                      </optgroup>
                    ))}
                  </select>
                )}
              </FilterField>
              <FilterField label="Group">
                {(id) => (
                  <select
                    id={id}
                    className="input"
                    value={groupValue}
                    onChange={(event) => {
                      const value = event.target.value;
                      update({
                        no_group: value === "none" || undefined,
                        group_id: value && value !== "none" ? value : undefined,
                      });
                    }}
                  >
                    <option value="">Any group</option>
                    <option value="none">No group (default group)</option>
                    {lookups.groups.map((group) => (
                      <option key={group.group_id} value={group.group_id}>
                        {group.name}
                      </option>
                    ))}
                  </select>
                )}
              </FilterField>
              <FilterField label="Tenant">
                {(id) => (
                  <DebouncedInput
                    id={id}
                    key={`tenant-${resetCount}`}
                    className="input"
                    value={search.tenant_id ?? ""}
                    disabled={search.no_tenant}
                    placeholder="Project id"
                    onCommit={(tenant) => update({ tenant_id: tenant.trim() || undefined })}
                  />
                )}
              </FilterField>
              <label className="filter-check">
                <input
                  type="checkbox"
                  checked={search.no_tenant ?? false}
                  onChange={(event) => update({ no_tenant: event.target.checked || undefined })}
                />
                <span>Only rules for all tenants</span>
              </label>
              <FilterField label="Type">
                {(id) => (
                  <select
                    id={id}
                    className="input"
                    value={search.type ?? ""}
                    onChange={(event) =>
                      update({ type: (event.target.value || undefined) as ExplorerSearch["type"] })
                    }
                  >
                    <option value="">Flat and rate</option>
                    <option value="flat">Flat</option>
                    <option value="rate">Rate</option>
                  </select>
                )}
              </FilterField>
              <FilterField label="Status">
                {(id) => (
                  <RuleStatusSelect
                    id={id}
                    value={search.status}
                    onChange={(status) => update({ status })}
                  />
                )}
              </FilterField>
              <FilterField label="Created by">
                {(id) => (
                  <DebouncedInput
                    id={id}
                    key={`created-by-${resetCount}`}
                    className="input"
                    value={search.created_by ?? ""}
                    placeholder="User id"
                    onCommit={(user) => update({ created_by: user.trim() || undefined })}
                  />
                )}
              </FilterField>
              <FilterField label="Description">
                {(id) => (
                  <DebouncedInput
                    id={id}
                    key={`description-${resetCount}`}
                    className="input"
                    value={search.description ?? ""}
                    placeholder="Contains…"
                    onCommit={(text) => update({ description: text.trim() || undefined })}
                  />
                )}
              </FilterField>
              <FilterField label="Search" grow>
                {(id) => (
                  <DebouncedInput
                    id={id}
                    key={`q-${resetCount}`}
                    type="search"
                    className="input"
                    value={search.q ?? ""}
                    placeholder="Value, service, field, group, tenant, cost…"
                    onCommit={(q) => update({ q: q || undefined })}
                  />
                )}
              </FilterField>
              {filtered && (
                <button type="button" className="button" onClick={() => void clearFilters()}>
                  Clear filters
                </button>
              )}
            </form>
          }
          error={
            lookupError ? <ErrorPanel error={lookupError} onRetry={refetchLookups} /> : undefined
          }
          empty={
            filtered ? (
              <NoMatch what="rules" onClear={() => void clearFilters()} />
            ) : (
              <EmptyState
                title="No rules yet"
                action={
                  <Link to="/hashmap/services" className="button primary">
                    Go to services to add the first rule
                  </Link>
                }
              >
                Rules are the mappings and thresholds of services and fields. Create a service
                first, then its mappings.
              </EmptyState>
            )
          }
        />
      </div>
    </section>
  );
}

function FilterField({
  label,
  grow = false,
  children,
}: {
  label: string;
  grow?: boolean;
  children: (id: string) => ReactNode;
}) {
  const id = useId();
  return (
    <div className={grow ? "filter-field grow" : "filter-field"}>
      <label htmlFor={id}>{label}</label>
      {children(id)}
    </div>
  );
}
