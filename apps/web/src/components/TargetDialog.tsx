import { useMutation } from "@tanstack/react-query";
import { Dialog } from "radix-ui";
import { useState } from "react";
import { useForm, useWatch, type FieldErrors, type Resolver } from "react-hook-form";
import { toast } from "sonner";
import { useRefreshAll } from "../hooks";
import { describeProblem } from "../lib/errors";
import {
  canKeepSecret,
  connectionInput,
  EMPTY_TARGET_FORM,
  targetFormValues,
  validateTargetForm,
  type TargetFormValues,
} from "../lib/targets";
import { useTRPC, type RouterOutputs } from "../trpc";
import { ConfirmDialog } from "./ConfirmDialog";
import { FormField } from "./FormField";
import { UnsavedChangesGuard } from "./UnsavedChangesGuard";

export type Target = RouterOutputs["targets"]["get"];

const MODES = [
  {
    value: "import-source",
    label: "Import source: read only (import, plan, drift)",
  },
  { value: "managed", label: "Managed: Ratecard applies its rules to it" },
] as const;

/** Register a CloudKitty target (`target` null) or change one. Secrets are write-only. */
export function TargetDialog({
  target,
  onClose,
  onSaved,
}: {
  target: Target | null;
  onClose: () => void;
  onSaved?: (target: Target) => void;
}) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const create = useMutation(trpc.targets.create.mutationOptions());
  const update = useMutation(trpc.targets.update.mutationOptions());
  const stored = target?.connection ?? null;
  const resolver: Resolver<TargetFormValues> = (values) => {
    const errors = validateTargetForm(values, stored);
    const entries = Object.entries(errors);
    return entries.length === 0
      ? { values, errors: {} }
      : {
          values: {},
          errors: Object.fromEntries(
            entries.map(([field, message]) => [field, { type: "validate", message }]),
          ) as FieldErrors<TargetFormValues>,
        };
  };
  const form = useForm<TargetFormValues>({
    defaultValues: target ? targetFormValues(target) : EMPTY_TARGET_FORM,
    resolver,
  });
  const { errors, isSubmitting, isDirty } = form.formState;
  const values = useWatch({ control: form.control }) as TargetFormValues;
  const keepSecret = canKeepSecret(stored, values);
  // Escape, a click outside or Cancel with something typed asks before throwing it away.
  const [confirmingDiscard, setConfirmingDiscard] = useState(false);
  const requestClose = () => {
    if (isDirty && !isSubmitting) setConfirmingDiscard(true);
    else onClose();
  };

  const submit = form.handleSubmit(async (input) => {
    const body = {
      name: input.name.trim(),
      mode: input.mode,
      prune: input.prune,
      push_scripts: input.pushScripts,
      push_modules: input.pushModules,
      connection: connectionInput(input),
    };
    try {
      const saved = target
        ? await update.mutateAsync({ target_id: target.target_id, ...body })
        : await create.mutateAsync(body);
      toast.success(target ? `Target “${saved.name}” saved` : `Target “${saved.name}” registered`);
      form.reset(targetFormValues(saved));
      onSaved?.(saved);
      onClose();
      await refreshAll();
    } catch (error) {
      const problem = describeProblem(error);
      form.setError(
        problem.code === "CONFLICT" ? "name" : "root",
        { message: problem.message },
        { shouldFocus: true },
      );
    }
  });

  const secretLabel =
    values.credentialKind === "application-credential"
      ? "Application credential secret"
      : "Password";

  return (
    <Dialog.Root open onOpenChange={(open) => !open && requestClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog target-dialog">
          <Dialog.Title className="dialog-title">
            {target ? `Edit target ${target.name}` : "Register a CloudKitty target"}
          </Dialog.Title>
          <Dialog.Description className="dialog-body">
            A CloudKitty deployment Ratecard imports rules from or applies them to, through
            CloudKitty's own v1 API. Secrets are stored encrypted and never shown again.
          </Dialog.Description>
          <form onSubmit={(event) => void submit(event)} noValidate>
            {errors.root?.message && (
              <p className="alert error" role="alert">
                {errors.root.message}
              </p>
            )}
            <FormField label="Name" required error={errors.name?.message}>
              {(a11y) => (
                <input {...a11y} {...form.register("name")} className="input" autoComplete="off" />
              )}
            </FormField>
            <FormField label="Mode" required error={errors.mode?.message}>
              {(a11y) => (
                <select {...a11y} {...form.register("mode")} className="input">
                  {MODES.map((mode) => (
                    <option key={mode.value} value={mode.value}>
                      {mode.label}
                    </option>
                  ))}
                </select>
              )}
            </FormField>
            <label className="choice">
              <input type="checkbox" {...form.register("prune")} /> Prune: apply deletes rules that
              exist only in CloudKitty
            </label>
            <label className="choice">
              <input type="checkbox" {...form.register("pushScripts")} /> Push scripts: apply writes
              pyscripts, code that CloudKitty's processor runs
            </label>
            <label className="choice">
              <input type="checkbox" {...form.register("pushModules")} /> Push module states: apply
              enables, disables and reorders CloudKitty's rating modules
            </label>

            <fieldset className="bare-fieldset target-fieldset">
              <legend className="form-label">Connection</legend>
              <label className="choice">
                <input type="radio" value="noauth" {...form.register("kind")} /> CloudKitty without
                authentication (noauth): a plain URL
              </label>
              <label className="choice">
                <input type="radio" value="keystone" {...form.register("kind")} /> Behind Keystone:
                the rating endpoint from the catalog
              </label>
            </fieldset>

            {values.kind === "noauth" ? (
              <FormField
                label="CloudKitty URL"
                required
                error={errors.url?.message}
                hint="For example http://cloudkitty:8889"
              >
                {(a11y) => (
                  <input {...a11y} {...form.register("url")} className="input" inputMode="url" />
                )}
              </FormField>
            ) : (
              <>
                <FormField
                  label="Keystone auth URL"
                  required
                  error={errors.authUrl?.message}
                  hint="For example http://keystone:5000/v3"
                >
                  {(a11y) => (
                    <input
                      {...a11y}
                      {...form.register("authUrl")}
                      className="input"
                      inputMode="url"
                    />
                  )}
                </FormField>
                <div className="target-row">
                  <FormField label="Region" error={errors.region?.message} hint="Optional">
                    {(a11y) => <input {...a11y} {...form.register("region")} className="input" />}
                  </FormField>
                  <FormField label="Interface" required>
                    {(a11y) => (
                      <select {...a11y} {...form.register("interface")} className="input">
                        <option value="public">public</option>
                        <option value="internal">internal</option>
                        <option value="admin">admin</option>
                      </select>
                    )}
                  </FormField>
                </div>
                <fieldset className="bare-fieldset target-fieldset">
                  <legend className="form-label">Credential</legend>
                  <label className="choice">
                    <input
                      type="radio"
                      value="application-credential"
                      {...form.register("credentialKind")}
                    />{" "}
                    Application credential
                  </label>
                  <label className="choice">
                    <input type="radio" value="password" {...form.register("credentialKind")} />{" "}
                    Service user and password
                  </label>
                </fieldset>
                {values.credentialKind === "application-credential" ? (
                  <FormField
                    label="Application credential ID"
                    required
                    error={errors.credentialId?.message}
                  >
                    {(a11y) => (
                      <input
                        {...a11y}
                        {...form.register("credentialId")}
                        className="input"
                        autoComplete="off"
                      />
                    )}
                  </FormField>
                ) : (
                  <>
                    <div className="target-row">
                      <FormField label="User name" required error={errors.username?.message}>
                        {(a11y) => (
                          <input
                            {...a11y}
                            {...form.register("username")}
                            className="input"
                            autoComplete="off"
                          />
                        )}
                      </FormField>
                      <FormField label="User domain" error={errors.userDomainName?.message}>
                        {(a11y) => (
                          <input {...a11y} {...form.register("userDomainName")} className="input" />
                        )}
                      </FormField>
                    </div>
                    <div className="target-row">
                      <FormField label="Project" required error={errors.projectName?.message}>
                        {(a11y) => (
                          <input {...a11y} {...form.register("projectName")} className="input" />
                        )}
                      </FormField>
                      <FormField label="Project domain" error={errors.projectDomainName?.message}>
                        {(a11y) => (
                          <input
                            {...a11y}
                            {...form.register("projectDomainName")}
                            className="input"
                          />
                        )}
                      </FormField>
                    </div>
                  </>
                )}
                <FormField
                  label={secretLabel}
                  required={!keepSecret}
                  error={errors.secret?.message}
                  hint={
                    keepSecret
                      ? "Unchanged: leave empty to keep the stored one, or type a new one."
                      : "Write-only: stored encrypted, never shown again."
                  }
                >
                  {(a11y) => (
                    <input
                      {...a11y}
                      {...form.register("secret")}
                      type="password"
                      className="input"
                      autoComplete="new-password"
                      placeholder={keepSecret ? "unchanged" : undefined}
                    />
                  )}
                </FormField>
              </>
            )}
            <div className="dialog-actions">
              <Dialog.Close className="button" type="button">
                Cancel
              </Dialog.Close>
              <button type="submit" className="button primary" disabled={isSubmitting}>
                {isSubmitting ? "Saving…" : target ? "Save target" : "Register target"}
              </button>
            </div>
          </form>
          <UnsavedChangesGuard
            when={isDirty && !isSubmitting}
            what="The target's settings you typed have not been saved."
          />
        </Dialog.Content>
      </Dialog.Portal>
      <ConfirmDialog
        open={confirmingDiscard}
        onOpenChange={setConfirmingDiscard}
        title="Discard what you typed?"
        confirmLabel="Discard"
        cancelLabel="Keep editing"
        onConfirm={() => {
          setConfirmingDiscard(false);
          onClose();
        }}
      >
        <p>
          {target
            ? `The changes to ${target.name} have not been saved.`
            : "The target has not been registered yet."}
        </p>
      </ConfirmDialog>
    </Dialog.Root>
  );
}
