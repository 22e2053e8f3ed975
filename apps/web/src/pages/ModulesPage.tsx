import { useMutation, useQuery } from "@tanstack/react-query";
import { Switch } from "radix-ui";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { toast } from "sonner";
import type { TRatingModule } from "@ratecard/validators";
import { HelpBox } from "../components/Concepts";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { useConflictAuthor } from "../components/ConflictDialog";
import { EmptyState } from "../components/EmptyState";
import { QueryState } from "../components/QueryState";
import { UnsavedChangesGuard } from "../components/UnsavedChangesGuard";
import { useRefreshAll } from "../hooks";
import { conflictOf, describeChange, isConflict } from "../lib/conflict";
import { describeProblem } from "../lib/errors";
import {
  describeModuleChange,
  describeProcessingOrder,
  parsePriority,
  type ModuleChange,
} from "../lib/modules";
import { ReadOnlyUnless, useCan } from "../session/permissions";
import { useTRPC } from "../trpc";

export function ModulesPage() {
  const trpc = useTRPC();
  const modules = useQuery(trpc.modules.list.queryOptions());
  const canUpdate = useCan().updateModules;
  const [dirtyRows, setDirtyRows] = useState<ReadonlySet<string>>(new Set());
  const onDirtyChange = useCallback(
    (moduleId: string, dirty: boolean) =>
      setDirtyRows((previous) => {
        if (previous.has(moduleId) === dirty) return previous;
        const next = new Set(previous);
        if (dirty) next.add(moduleId);
        else next.delete(moduleId);
        return next;
      }),
    [],
  );
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
              <>
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
                        <ModuleRow
                          key={module.module_id}
                          module={module}
                          modules={data.modules}
                          onDirtyChange={onDirtyChange}
                        />
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
                <p className="table-note">{describeProcessingOrder(data.modules)}</p>
              </>
            )
          }
        </QueryState>
      </div>
      <UnsavedChangesGuard
        when={dirtyRows.size > 0}
        what={`The priority typed for ${[...dirtyRows].join(" and ")} has not been set.`}
      />
    </section>
  );
}

function ModuleRow({
  module,
  modules,
  onDirtyChange,
}: {
  module: TRatingModule;
  modules: readonly TRatingModule[];
  onDirtyChange: (moduleId: string, dirty: boolean) => void;
}) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const update = useMutation(trpc.modules.update.mutationOptions());
  const conflictAuthor = useConflictAuthor();
  const priorityId = useId();
  // null: the input shows the saved priority (and follows it, e.g. after an undo).
  const [draft, setDraft] = useState<string | null>(null);
  const [priorityError, setPriorityError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<ModuleChange | null>(null);
  // After a priority change, focus goes to the input that shows it (the button is disabled then).
  const priorityInput = useRef<HTMLInputElement>(null);
  const priority = draft ?? String(module.priority);
  // The revision the row shows; a change names it, so one made meanwhile elsewhere is not undone.
  const revisionRef = useRef((module as { revision?: number }).revision);
  const shownRevision = (module as { revision?: number }).revision;
  useEffect(() => {
    revisionRef.current = shownRevision;
  }, [shownRevision]);
  const dirty = draft !== null && draft.trim() !== String(module.priority);
  useEffect(() => onDirtyChange(module.module_id, dirty), [module.module_id, dirty, onDirtyChange]);

  const send = async (change: ModuleChange): Promise<boolean> => {
    try {
      await update.mutateAsync({
        module_id: module.module_id,
        ...change,
        revision: revisionRef.current,
      });
      return true;
    } catch (error) {
      if (isConflict(error)) {
        const conflict = await conflictAuthor(module.module_id, conflictOf(error));
        toast.error(
          `Module ${module.module_id} was changed by someone else; nothing was changed.`,
          {
            description: `${describeChange(conflict)} The list now shows its current state: apply your change again if you still want it.`,
          },
        );
        return false;
      }
      toast.error(describeProblem(error).message);
      return false;
    } finally {
      await refreshAll();
    }
  };

  const apply = async (change: ModuleChange) => {
    const description = describeModuleChange(module, change, modules);
    if (!(await send(change))) return;
    setConfirming(null);
    if ("priority" in change) setDraft(null);
    toast.success(description.done, {
      description: description.effect,
      action: {
        label: "Undo",
        onClick: () =>
          void send(description.undo).then(
            (undone) => undone && toast.success(`Undone: ${undoneText(module, description.undo)}`),
          ),
      },
    });
  };

  const askPriority = () => {
    const value = parsePriority(priority);
    if (value === null) {
      setPriorityError("Enter a whole number, for example 1.");
      return;
    }
    setPriorityError(null);
    setConfirming({ priority: value });
  };

  const description = confirming ? describeModuleChange(module, confirming, modules) : null;
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
            onCheckedChange={(enabled) => setConfirming({ enabled })}
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
            askPriority();
          }}
        >
          <label htmlFor={priorityId} className="visually-hidden">
            Priority of {module.module_id}
          </label>
          <input
            ref={priorityInput}
            id={priorityId}
            className="input narrow"
            inputMode="numeric"
            value={priority}
            aria-invalid={Boolean(priorityError)}
            aria-describedby={priorityError ? `${priorityId}-error` : undefined}
            onChange={(event) => setDraft(event.target.value)}
          />
          <button
            type="submit"
            className="button small"
            disabled={update.isPending || !dirty}
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
        {description && confirming && (
          <ConfirmDialog
            open
            onOpenChange={(open) => !open && setConfirming(null)}
            title={description.title}
            confirmLabel={description.confirmLabel}
            pendingLabel="Saving…"
            pending={update.isPending}
            tone={"enabled" in confirming && !confirming.enabled ? "danger" : "primary"}
            {...("priority" in confirming && { finalFocus: priorityInput })}
            onConfirm={() => void apply(confirming)}
          >
            <p>{description.effect}</p>
            <p className="muted">You can undo it from the notification that follows.</p>
          </ConfirmDialog>
        )}
      </td>
    </tr>
  );
}

function undoneText(module: TRatingModule, undo: ModuleChange): string {
  return "enabled" in undo
    ? `${module.module_id} ${undo.enabled ? "enabled" : "disabled"} again`
    : `priority of ${module.module_id} back to ${undo.priority}`;
}
