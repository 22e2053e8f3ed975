import { useMutation, useQuery } from "@tanstack/react-query";
import { RadioGroup } from "radix-ui";
import { useState, type ReactNode } from "react";
import { toast } from "sonner";
import type { TField, TGroup, TScript, TService } from "@ratecard/validators";
import { useRefreshAll } from "../hooks";
import { conflictOf, isConflict, type ConflictInfo } from "../lib/conflict";
import { describeGroupDeletionProblem, describeProblem } from "../lib/errors";
import {
  fieldDeletionText,
  groupDeletionText,
  serviceDeletionText,
  type GroupDeletionMode,
} from "../lib/impact";
import { useTRPC } from "../trpc";
import { ConfirmDialog } from "./ConfirmDialog";
import { ConflictDialog, useConflictAuthor } from "./ConflictDialog";

/** What the lists answered over RPC: each object with the revision it was read at. */
type Read<T> = T & { revision?: number | undefined };

interface DeleteDialogProps {
  onClose: () => void;
  /** Called after the delete succeeded, before the lists are refetched (e.g. to leave the deleted object's page). */
  onDeleted: () => void | Promise<void>;
}

/**
 * Runs a delete that names the revision the list showed. When the object changed since, the
 * confirmation gives way to the conflict dialog: Reload closes it and refreshes the lists, "Delete
 * anyway" deletes the current version (its revision now).
 */
function useDeleteFlow(
  onDeleted: () => void | Promise<void>,
  describeFailure: (error: unknown) => string = (error) => describeProblem(error).message,
  resource?: { id: string; revision: number | undefined; noun: string; onClose: () => void },
) {
  const refreshAll = useRefreshAll();
  const conflictAuthor = useConflictAuthor();
  const [failure, setFailure] = useState<string | null>(null);
  const [revision, setRevision] = useState(resource?.revision);
  const [conflict, setConflict] = useState<ConflictInfo | null>(null);
  const [pending, setPending] = useState(false);
  const [last, setLast] = useState<{
    remove: (revision: number | undefined) => Promise<unknown>;
    successMessage: string;
  } | null>(null);
  const run = async (
    remove: (revision: number | undefined) => Promise<unknown>,
    successMessage: string,
    expected: number | undefined = revision,
  ) => {
    setFailure(null);
    setLast({ remove, successMessage });
    try {
      await remove(expected);
    } catch (error) {
      if (resource && isConflict(error)) {
        const info = await conflictAuthor(resource.id, conflictOf(error));
        setRevision(info.currentRevision ?? undefined);
        setConflict(info);
        return;
      }
      const message = describeFailure(error);
      // Shown in the confirmation, which comes back in place of a conflict dialog.
      setConflict(null);
      setFailure(message);
      toast.error(message);
      return;
    }
    toast.success(successMessage);
    await onDeleted();
    await refreshAll();
  };
  const conflictDialog: ReactNode =
    conflict && resource ? (
      <ConflictDialog
        open
        title={`This ${resource.noun} was changed by someone else`}
        conflict={conflict}
        differences={null}
        note="Nothing was deleted."
        pending={pending}
        reapplyLabel="Delete anyway"
        onReload={() => {
          void refreshAll();
          resource.onClose();
        }}
        onReapply={() => {
          if (!last) return;
          setPending(true);
          void run(last.remove, last.successMessage, conflict.currentRevision ?? undefined).finally(
            () => setPending(false),
          );
        }}
        onClose={resource.onClose}
      />
    ) : null;
  return { failure, run, conflictDialog };
}

function Failure({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p className="alert error" role="alert">
      {message}
    </p>
  );
}

function CountingNote({ isPending, isError }: { isPending: boolean; isError: boolean }) {
  if (isPending) return <p className="muted">Counting what goes with it…</p>;
  if (isError)
    return (
      <p className="alert error">
        Could not count what goes with it; the delete removes everything beneath it.
      </p>
    );
  return null;
}

export function DeleteServiceDialog({
  service,
  onClose,
  onDeleted,
}: DeleteDialogProps & { service: Read<TService> }) {
  const trpc = useTRPC();
  const impact = useQuery(
    trpc.console.serviceDeletionImpact.queryOptions({ service_id: service.service_id }),
  );
  const remove = useMutation(trpc.hashmap.services.delete.mutationOptions());
  const { failure, run, conflictDialog } = useDeleteFlow(onDeleted, undefined, {
    id: service.service_id,
    revision: service.revision,
    noun: "service",
    onClose,
  });
  if (conflictDialog) return conflictDialog;
  return (
    <ConfirmDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title={`Delete service “${service.name}”?`}
      confirmLabel="Delete service"
      pending={remove.isPending}
      confirmDisabled={impact.isPending}
      onConfirm={() =>
        void run(
          (revision) => remove.mutateAsync({ service_id: service.service_id, revision }),
          `Service “${service.name}” deleted`,
        )
      }
    >
      <CountingNote isPending={impact.isPending} isError={impact.isError} />
      {impact.data && <p>{serviceDeletionText(service.name, impact.data)}</p>}
      <p className="muted">This cannot be undone.</p>
      <Failure message={failure} />
    </ConfirmDialog>
  );
}

export function DeleteFieldDialog({
  field,
  onClose,
  onDeleted,
}: DeleteDialogProps & { field: Read<TField> }) {
  const trpc = useTRPC();
  const impact = useQuery(
    trpc.console.fieldDeletionImpact.queryOptions({ field_id: field.field_id }),
  );
  const remove = useMutation(trpc.hashmap.fields.delete.mutationOptions());
  const { failure, run, conflictDialog } = useDeleteFlow(onDeleted, undefined, {
    id: field.field_id,
    revision: field.revision,
    noun: "field",
    onClose,
  });
  if (conflictDialog) return conflictDialog;
  return (
    <ConfirmDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title={`Delete field “${field.name}”?`}
      confirmLabel="Delete field"
      pending={remove.isPending}
      confirmDisabled={impact.isPending}
      onConfirm={() =>
        void run(
          (revision) => remove.mutateAsync({ field_id: field.field_id, revision }),
          `Field “${field.name}” deleted`,
        )
      }
    >
      <CountingNote isPending={impact.isPending} isError={impact.isError} />
      {impact.data && <p>{fieldDeletionText(field.name, impact.data)}</p>}
      <p className="muted">This cannot be undone.</p>
      <Failure message={failure} />
    </ConfirmDialog>
  );
}

export function DeleteGroupDialog({
  group,
  onClose,
  onDeleted,
}: DeleteDialogProps & { group: Read<TGroup> }) {
  const trpc = useTRPC();
  const impact = useQuery(
    trpc.console.groupDeletionImpact.queryOptions({ group_id: group.group_id }),
  );
  const remove = useMutation(trpc.hashmap.groups.delete.mutationOptions());
  const { failure, run, conflictDialog } = useDeleteFlow(
    onDeleted,
    (error) => describeGroupDeletionProblem(error, group.name),
    { id: group.group_id, revision: group.revision, noun: "group", onClose },
  );
  const [mode, setMode] = useState<GroupDeletionMode | "">("");
  const hasRules = impact.data ? impact.data.mappings + impact.data.thresholds > 0 : false;
  if (conflictDialog) return conflictDialog;
  return (
    <ConfirmDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title={`Delete group “${group.name}”?`}
      confirmLabel={hasRules && mode === "delete-rules" ? "Delete group and rules" : "Delete group"}
      pending={remove.isPending}
      confirmDisabled={impact.isPending || (hasRules && mode === "")}
      onConfirm={() =>
        void run(
          (revision) =>
            remove.mutateAsync({
              group_id: group.group_id,
              recursive: mode === "delete-rules",
              revision,
            }),
          mode === "delete-rules"
            ? `Group “${group.name}” and its rules deleted`
            : `Group “${group.name}” deleted`,
        )
      }
    >
      <CountingNote isPending={impact.isPending} isError={impact.isError} />
      {impact.data && !hasRules && (
        <p>{groupDeletionText(group.name, impact.data, "keep-rules")}</p>
      )}
      {impact.data && hasRules && (
        <fieldset className="choice">
          <legend>What should happen to its rules?</legend>
          <RadioGroup.Root
            className="radio-cards"
            value={mode}
            onValueChange={(value) => setMode(value as GroupDeletionMode)}
            aria-label="What should happen to the group's rules"
          >
            <label className="radio-card">
              <RadioGroup.Item value="keep-rules" className="radio">
                <RadioGroup.Indicator className="radio-dot" />
              </RadioGroup.Item>
              <span>
                <strong>Keep the rules</strong>
                <span className="radio-text">
                  {groupDeletionText(group.name, impact.data, "keep-rules")}
                </span>
              </span>
            </label>
            <label className="radio-card">
              <RadioGroup.Item value="delete-rules" className="radio">
                <RadioGroup.Indicator className="radio-dot" />
              </RadioGroup.Item>
              <span>
                <strong>Delete the rules too</strong>
                <span className="radio-text">
                  {groupDeletionText(group.name, impact.data, "delete-rules")}
                </span>
              </span>
            </label>
          </RadioGroup.Root>
        </fieldset>
      )}
      <Failure message={failure} />
    </ConfirmDialog>
  );
}

export function DeleteRuleDialog({
  kind,
  ruleId,
  revision,
  description,
  onClose,
  onDeleted,
}: {
  kind: "mapping" | "threshold";
  ruleId: string;
  /** The revision the list showed: a rule changed since is not deleted unseen. */
  revision?: number | undefined;
  /** Names the rule, e.g. "the flat mapping for m1.small on instance › flavor_id". */
  description: string;
  onClose: () => void;
  onDeleted: () => void | Promise<void>;
}) {
  const trpc = useTRPC();
  const removeMapping = useMutation(trpc.hashmap.mappings.delete.mutationOptions());
  const removeThreshold = useMutation(trpc.hashmap.thresholds.delete.mutationOptions());
  const { failure, run, conflictDialog } = useDeleteFlow(onDeleted, undefined, {
    id: ruleId,
    revision,
    noun: kind,
    onClose,
  });
  const remove = (expected: number | undefined) =>
    kind === "mapping"
      ? removeMapping.mutateAsync({ mapping_id: ruleId, revision: expected })
      : removeThreshold.mutateAsync({ threshold_id: ruleId, revision: expected });
  if (conflictDialog) return conflictDialog;
  return (
    <ConfirmDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title={`Delete this ${kind}?`}
      confirmLabel={`Delete ${kind}`}
      pending={removeMapping.isPending || removeThreshold.isPending}
      onConfirm={() => void run(remove, `${kind === "mapping" ? "Mapping" : "Threshold"} deleted`)}
    >
      <p>Delete {description}? Prices that it set change at the next rating.</p>
      <p>
        The {kind} is kept as history (a soft delete): it leaves the lists and stops pricing, and
        the Status filter’s “Deleted” still shows it with who deleted it and when. An identical{" "}
        {kind} can be created again.
      </p>
      <Failure message={failure} />
    </ConfirmDialog>
  );
}

export function DeleteScriptDialog({
  script,
  onClose,
  onDeleted,
}: DeleteDialogProps & { script: Read<Pick<TScript, "script_id" | "name">> }) {
  const trpc = useTRPC();
  const remove = useMutation(trpc.pyscripts.scripts.delete.mutationOptions());
  const { failure, run, conflictDialog } = useDeleteFlow(onDeleted, undefined, {
    id: script.script_id,
    revision: script.revision,
    noun: "script",
    onClose,
  });
  if (conflictDialog) return conflictDialog;
  return (
    <ConfirmDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title={`Delete script “${script.name}”?`}
      confirmLabel="Delete script"
      pending={remove.isPending}
      onConfirm={() =>
        void run(
          (revision) => remove.mutateAsync({ script_id: script.script_id, revision }),
          `Script “${script.name}” deleted`,
        )
      }
    >
      <p>
        The PyScripts module stops running it at the next rating. It cannot be restored, but it is
        kept as history (a soft delete), and a script with the same name can be created again.
      </p>
      <Failure message={failure} />
    </ConfirmDialog>
  );
}
