import { zodResolver } from "@hookform/resolvers/zod";
import { Dialog } from "radix-ui";
import { useId, useState, type ReactNode } from "react";
import { useForm, useWatch } from "react-hook-form";
import { z } from "zod";
import { describeProblem } from "../lib/errors";
import { ConfirmDialog } from "./ConfirmDialog";
import { FormField } from "./FormField";

/**
 * The create form of objects that are just a name (service, field, group). `schema` is the API's
 * own create schema, so the form refuses what the server would.
 */
export function NameDialog({
  open,
  onOpenChange,
  title,
  description,
  nameLabel,
  nameHint,
  submitLabel,
  schema,
  extraInput = {},
  suggestions = [],
  adviseOn,
  onSubmit,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  nameLabel: string;
  nameHint?: ReactNode;
  submitLabel: string;
  schema: z.ZodType<{ name: string }, { name: string }>;
  /** Fixed parts of the input, e.g. the service of a new field. */
  extraInput?: Record<string, string>;
  /** Names offered as the user types (any other name is still accepted). */
  suggestions?: readonly string[];
  /** A remark on the name typed that does not stop the form, or null. */
  adviseOn?: (name: string) => string | null;
  onSubmit: (name: string) => Promise<unknown>;
}) {
  const form = useForm<{ name: string }>({
    defaultValues: { name: "" },
    resolver: zodResolver(
      z
        .object({ name: z.string() })
        .transform((values) => ({ ...extraInput, ...values }))
        .pipe(schema),
    ),
  });
  const { errors, isSubmitting } = form.formState;
  const name = useWatch({ control: form.control, name: "name" });
  const suggestionsId = useId();
  // Escape, a click outside or Cancel with a name typed asks before throwing it away.
  const [confirmingDiscard, setConfirmingDiscard] = useState(false);
  const close = () => {
    setConfirmingDiscard(false);
    form.reset();
    onOpenChange(false);
  };
  const requestClose = () => {
    if (name.trim() !== "" && !isSubmitting) setConfirmingDiscard(true);
    else close();
  };

  const submit = form.handleSubmit(async ({ name }) => {
    try {
      await onSubmit(name);
      form.reset();
      onOpenChange(false);
    } catch (error) {
      const problem = describeProblem(error);
      form.setError(
        "name",
        { message: problem.fieldErrors.name ?? problem.message },
        { shouldFocus: true },
      );
    }
  });

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        if (next) onOpenChange(true);
        else requestClose();
      }}
    >
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title className="dialog-title">{title}</Dialog.Title>
          <Dialog.Description className="dialog-body">{description}</Dialog.Description>
          <form onSubmit={(event) => void submit(event)} noValidate>
            <FormField
              label={nameLabel}
              hint={nameHint}
              advice={adviseOn?.(name)}
              error={errors.name?.message}
              required
            >
              {(a11y) => (
                <input
                  {...a11y}
                  {...form.register("name")}
                  className="input"
                  autoComplete="off"
                  list={suggestions.length > 0 ? suggestionsId : undefined}
                />
              )}
            </FormField>
            {suggestions.length > 0 && (
              <datalist id={suggestionsId}>
                {suggestions.map((suggestion) => (
                  <option key={suggestion} value={suggestion} />
                ))}
              </datalist>
            )}
            <div className="dialog-actions">
              <Dialog.Close className="button" type="button">
                Cancel
              </Dialog.Close>
              <button type="submit" className="button primary" disabled={isSubmitting}>
                {isSubmitting ? "Creating…" : submitLabel}
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
      <ConfirmDialog
        open={confirmingDiscard}
        onOpenChange={setConfirmingDiscard}
        title="Discard what you typed?"
        confirmLabel="Discard"
        cancelLabel="Keep editing"
        onConfirm={close}
      >
        <p>“{name.trim()}” has not been created yet.</p>
      </ConfirmDialog>
    </Dialog.Root>
  );
}
