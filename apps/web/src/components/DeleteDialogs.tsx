import { useMutation, useQuery } from "@tanstack/react-query";
import { RadioGroup } from "radix-ui";
import { useState } from "react";
import { toast } from "sonner";
import type { TField, TGroup, TScript, TService } from "@ratecard/validators";
import { useRefreshAll } from "../hooks";
import { describeGroupDeletionProblem, describeProblem } from "../lib/errors";
import {
  fieldDeletionText,
  groupDeletionText,
  serviceDeletionText,
  type GroupDeletionMode,
} from "../lib/impact";
import { useTRPC } from "../trpc";
import { ConfirmDialog } from "./ConfirmDialog";

interface DeleteDialogProps {
  onClose: () => void;
  /** Called after the delete succeeded, before the lists are refetched (e.g. to leave the deleted object's page). */
  onDeleted: () => void | Promise<void>;
}

function useDeleteFlow(
  onDeleted: () => void | Promise<void>,
  describeFailure: (error: unknown) => string = (error) => describeProblem(error).message,
) {
  const refreshAll = useRefreshAll();
  const [failure, setFailure] = useState<string | null>(null);
  const run = async (remove: () => Promise<unknown>, successMessage: string) => {
    setFailure(null);
    try {
      await remove();
    } catch (error) {
      const message = describeFailure(error);
      setFailure(message);
      toast.error(message);
      return;
    }
    toast.success(successMessage);
    await onDeleted();
    await refreshAll();
  };
  return { failure, run };
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
}: DeleteDialogProps & { service: TService }) {
  const trpc = useTRPC();
  const impact = useQuery(
    trpc.console.serviceDeletionImpact.queryOptions({ service_id: service.service_id }),
  );
  const remove = useMutation(trpc.hashmap.services.delete.mutationOptions());
  const { failure, run } = useDeleteFlow(onDeleted);
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
          () => remove.mutateAsync({ service_id: service.service_id }),
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
}: DeleteDialogProps & { field: TField }) {
  const trpc = useTRPC();
  const impact = useQuery(
    trpc.console.fieldDeletionImpact.queryOptions({ field_id: field.field_id }),
  );
  const remove = useMutation(trpc.hashmap.fields.delete.mutationOptions());
  const { failure, run } = useDeleteFlow(onDeleted);
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
          () => remove.mutateAsync({ field_id: field.field_id }),
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
}: DeleteDialogProps & { group: TGroup }) {
  const trpc = useTRPC();
  const impact = useQuery(
    trpc.console.groupDeletionImpact.queryOptions({ group_id: group.group_id }),
  );
  const remove = useMutation(trpc.hashmap.groups.delete.mutationOptions());
  const { failure, run } = useDeleteFlow(onDeleted, (error) =>
    describeGroupDeletionProblem(error, group.name),
  );
  const [mode, setMode] = useState<GroupDeletionMode | "">("");
  const hasRules = impact.data ? impact.data.mappings + impact.data.thresholds > 0 : false;
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
          () =>
            remove.mutateAsync({ group_id: group.group_id, recursive: mode === "delete-rules" }),
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
  description,
  onClose,
  onDeleted,
}: {
  kind: "mapping" | "threshold";
  ruleId: string;
  /** Names the rule, e.g. "the flat mapping for m1.small on instance › flavor_id". */
  description: string;
  onClose: () => void;
  onDeleted: () => void | Promise<void>;
}) {
  const trpc = useTRPC();
  const removeMapping = useMutation(trpc.hashmap.mappings.delete.mutationOptions());
  const removeThreshold = useMutation(trpc.hashmap.thresholds.delete.mutationOptions());
  const { failure, run } = useDeleteFlow(onDeleted);
  const remove = () =>
    kind === "mapping"
      ? removeMapping.mutateAsync({ mapping_id: ruleId })
      : removeThreshold.mutateAsync({ threshold_id: ruleId });
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
      <Failure message={failure} />
    </ConfirmDialog>
  );
}

export function DeleteScriptDialog({
  script,
  onClose,
  onDeleted,
}: DeleteDialogProps & { script: Pick<TScript, "script_id" | "name"> }) {
  const trpc = useTRPC();
  const remove = useMutation(trpc.pyscripts.scripts.delete.mutationOptions());
  const { failure, run } = useDeleteFlow(onDeleted);
  return (
    <ConfirmDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title={`Delete script “${script.name}”?`}
      confirmLabel="Delete script"
      pending={remove.isPending}
      onConfirm={() =>
        void run(
          () => remove.mutateAsync({ script_id: script.script_id }),
          `Script “${script.name}” deleted`,
        )
      }
    >
      <p>The PyScripts module stops running it at the next rating. This cannot be undone.</p>
      <Failure message={failure} />
    </ConfirmDialog>
  );
}
