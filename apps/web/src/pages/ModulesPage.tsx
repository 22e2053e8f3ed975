import { useMutation, useQuery } from "@tanstack/react-query";
import { Switch } from "radix-ui";
import { useId, useState } from "react";
import { toast } from "sonner";
import type { TRatingModule } from "@ratecard/validators";
import { HelpBox } from "../components/Concepts";
import { EmptyState } from "../components/EmptyState";
import { QueryState } from "../components/QueryState";
import { useRefreshAll } from "../hooks";
import { describeProblem } from "../lib/errors";
import { ReadOnlyUnless, useCan } from "../session/permissions";
import { useTRPC } from "../trpc";

export function ModulesPage() {
  const trpc = useTRPC();
  const modules = useQuery(trpc.modules.list.queryOptions());
  const canUpdate = useCan().updateModules;
  return (
    <section>
      <header className="page-header">
        <div>
          <h1>Rating modules</h1>
          <p className="lead">Which modules price usage, and in which order.</p>
        </div>
      </header>
      <HelpBox summary="How do priority and enabled work?">
        <p>
          Only enabled modules rate usage. The module with the <strong>biggest</strong> priority
          processes data first. The hashmap module applies the services, fields, mappings and
          thresholds of this console; PyScripts runs the scripts.
        </p>
      </HelpBox>
      <ReadOnlyUnless permission="updateModules" />
      <div className="panel">
        <QueryState query={modules}>
          {(data) =>
            data.modules.length === 0 ? (
              <EmptyState title="No rating modules">
                The server reports no rating module.
              </EmptyState>
            ) : (
              <table className="data-table" aria-label="Rating modules">
                <thead>
                  <tr>
                    <th scope="col">Module</th>
                    <th scope="col">Description</th>
                    <th scope="col">Enabled</th>
                    <th scope="col">Priority</th>
                  </tr>
                </thead>
                <tbody>
                  {data.modules.map((module) =>
                    canUpdate ? (
                      <ModuleRow key={module.module_id} module={module} />
                    ) : (
                      <tr key={module.module_id}>
                        <th scope="row">{module.module_id}</th>
                        <td className="muted">{module.description}</td>
                        <td>{module.enabled ? "Enabled" : "Disabled"}</td>
                        <td className="mono">{module.priority}</td>
                      </tr>
                    ),
                  )}
                </tbody>
              </table>
            )
          }
        </QueryState>
      </div>
    </section>
  );
}

function ModuleRow({ module }: { module: TRatingModule }) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const update = useMutation(trpc.modules.update.mutationOptions());
  const priorityId = useId();
  const [priority, setPriority] = useState(String(module.priority));
  const [priorityError, setPriorityError] = useState<string | null>(null);

  const save = async (change: { enabled?: boolean; priority?: number }, success: string) => {
    try {
      await update.mutateAsync({ module_id: module.module_id, ...change });
    } catch (error) {
      toast.error(describeProblem(error).message);
      return;
    }
    toast.success(success);
    await refreshAll();
  };

  const savePriority = () => {
    const value = Number(priority);
    if (!/^-?\d+$/.test(priority.trim()) || !Number.isSafeInteger(value)) {
      setPriorityError("Enter a whole number, for example 1.");
      return;
    }
    setPriorityError(null);
    void save({ priority: value }, `Priority of ${module.module_id} set to ${value}`);
  };

  return (
    <tr>
      <th scope="row">{module.module_id}</th>
      <td className="muted">{module.description}</td>
      <td>
        <span className="switch-field">
          <Switch.Root
            className="switch"
            checked={module.enabled}
            disabled={update.isPending}
            onCheckedChange={(enabled) =>
              void save({ enabled }, `${module.module_id} ${enabled ? "enabled" : "disabled"}`)
            }
            aria-label={`${module.module_id} enabled`}
          >
            <Switch.Thumb className="switch-thumb" />
          </Switch.Root>
          <span aria-hidden="true">{module.enabled ? "Enabled" : "Disabled"}</span>
        </span>
      </td>
      <td>
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            savePriority();
          }}
        >
          <label htmlFor={priorityId} className="visually-hidden">
            Priority of {module.module_id}
          </label>
          <input
            id={priorityId}
            className="input narrow"
            inputMode="numeric"
            value={priority}
            aria-invalid={Boolean(priorityError)}
            aria-describedby={priorityError ? `${priorityId}-error` : undefined}
            onChange={(event) => setPriority(event.target.value)}
          />
          <button
            type="submit"
            className="button small"
            disabled={update.isPending || priority === String(module.priority)}
            aria-label={`Set priority of ${module.module_id}`}
          >
            Set priority
          </button>
          {priorityError && (
            <span id={`${priorityId}-error`} className="form-error">
              {priorityError}
            </span>
          )}
        </form>
      </td>
    </tr>
  );
}
