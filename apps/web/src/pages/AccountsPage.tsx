import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Dialog } from "radix-ui";
import { useState } from "react";
import { useForm, type UseFormRegisterReturn } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { ApiTokenTable } from "../components/ApiTokens";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { FormField } from "../components/FormField";
import { QueryState } from "../components/QueryState";
import { useRefreshAll } from "../hooks";
import { formatDateTime } from "../lib/accounts";
import { describeProblem } from "../lib/errors";
import { ReadOnlyNotice, useCan } from "../session/permissions";
import { useSession } from "../session/SessionProvider";
import { useTRPC, type RouterOutputs } from "../trpc";

type AccountUser = RouterOutputs["accounts"]["users"]["list"]["users"][number];
type Role = AccountUser["role"];

const ROLES: { value: Role; label: string }[] = [
  { value: "reader", label: "reader: sees everything, changes nothing" },
  { value: "admin", label: "admin: changes rules and modules, manages accounts" },
];

const PASSWORD_HINT =
  "At least 12 characters. Hand it over through a safe channel; the server stores only a hash.";

export function AccountsPage() {
  const { session } = useSession();
  const { manageAccounts } = useCan();
  if (session.strategy !== "local" || !manageAccounts) {
    return (
      <section>
        <h1>Users and API tokens</h1>
        {session.strategy !== "local" ? (
          <p className="alert note" role="note">
            Ratecard's own accounts are used only with <code>AUTH_STRATEGY=local</code>. Under
            Keystone, users and roles are managed in Keystone.
          </p>
        ) : (
          <ReadOnlyNotice permission="manageAccounts" />
        )}
      </section>
    );
  }
  return <AccountsAdmin currentUserId={session.user.id} />;
}

function AccountsAdmin({ currentUserId }: { currentUserId: string }) {
  const trpc = useTRPC();
  const users = useQuery(trpc.accounts.users.list.queryOptions());
  const tokens = useQuery(trpc.accounts.tokens.list.queryOptions({}));
  const [creating, setCreating] = useState(false);
  const [resetting, setResetting] = useState<AccountUser | null>(null);
  const [deleting, setDeleting] = useState<AccountUser | null>(null);

  return (
    <section className="account-page">
      <header className="page-header">
        <div>
          <h1>Users and API tokens</h1>
          <p className="lead">
            Ratecard's own accounts. Readers see every rule; admins also change them and manage
            accounts.
          </p>
        </div>
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          Create user
        </button>
      </header>
      <div className="panel">
        <h2 className="panel-title">Users</h2>
        <QueryState query={users}>
          {(data) => (
            <table className="data-table" aria-label="Users">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Role</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.users.map((user) => (
                  <tr key={user.id}>
                    <th scope="row">
                      {user.name}
                      {user.id === currentUserId && <span className="muted"> (you)</span>}
                    </th>
                    <td>
                      <RoleSelect user={user} />
                    </td>
                    <td>{formatDateTime(user.createdAt)}</td>
                    <td>
                      <span className="row-actions">
                        <button
                          type="button"
                          className="button small"
                          onClick={() => setResetting(user)}
                          aria-label={`Reset the password of ${user.name}`}
                        >
                          Reset password
                        </button>
                        <button
                          type="button"
                          className="button small danger-outline"
                          onClick={() => setDeleting(user)}
                          aria-label={`Delete user ${user.name}`}
                        >
                          Delete
                        </button>
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </QueryState>
      </div>
      <div className="panel">
        <h2 className="panel-title">API tokens of every user</h2>
        <p className="muted">
          Each user creates their own tokens on <Link to="/account/tokens">My API tokens</Link>;
          here you can revoke anyone's.
        </p>
        <QueryState query={tokens}>
          {(data) => (
            <ApiTokenTable
              tokens={data.tokens}
              showOwner
              label="API tokens of every user"
              emptyText="No user has created an API token."
            />
          )}
        </QueryState>
      </div>
      <CreateUserDialog open={creating} onOpenChange={setCreating} />
      {resetting && <ResetPasswordDialog user={resetting} onClose={() => setResetting(null)} />}
      {deleting && <DeleteUserDialog user={deleting} onClose={() => setDeleting(null)} />}
    </section>
  );
}

function RoleSelect({ user }: { user: AccountUser }) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const update = useMutation(trpc.accounts.users.update.mutationOptions());
  return (
    <select
      className="input"
      value={user.role}
      disabled={update.isPending}
      aria-label={`Role of ${user.name}`}
      onChange={(event) => {
        const role = event.target.value as Role;
        void update.mutateAsync({ id: user.id, role }).then(
          async () => {
            toast.success(`${user.name} is now ${role === "admin" ? "an admin" : "a reader"}`);
            await refreshAll();
          },
          (error: unknown) => toast.error(describeProblem(error).message),
        );
      }}
    >
      {ROLES.map((role) => (
        <option key={role.value} value={role.value}>
          {role.value}
        </option>
      ))}
    </select>
  );
}

const ZCreateUser = z.object({
  name: z.string().trim().min(1, "Enter a user name.").max(64, "At most 64 characters."),
  role: z.enum(["admin", "reader"]),
  password: z.string().min(1, "Enter a password."),
});
type CreateUserValues = z.infer<typeof ZCreateUser>;

function CreateUserDialog({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const create = useMutation(trpc.accounts.users.create.mutationOptions());
  const form = useForm<CreateUserValues>({
    defaultValues: { name: "", role: "reader", password: "" },
    resolver: zodResolver(ZCreateUser),
  });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (input) => {
    try {
      const user = await create.mutateAsync(input);
      toast.success(`User “${user.name}” created as ${user.role}`);
      form.reset();
      onOpenChange(false);
      await refreshAll();
    } catch (error) {
      const problem = describeProblem(error);
      const field =
        problem.code === "CONFLICT"
          ? "name"
          : /password/i.test(problem.message)
            ? "password"
            : "root";
      form.setError(
        field,
        { message: problem.fieldErrors[field] ?? problem.message },
        { shouldFocus: true },
      );
    }
  });
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        if (!next) form.reset();
        onOpenChange(next);
      }}
    >
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title className="dialog-title">Create a user</Dialog.Title>
          <Dialog.Description className="dialog-body">
            A local account that signs in to this console with a password and can create API tokens.
          </Dialog.Description>
          <form onSubmit={(event) => void submit(event)} noValidate>
            {errors.root?.message && (
              <p className="alert error" role="alert">
                {errors.root.message}
              </p>
            )}
            <FormField label="User name" required error={errors.name?.message}>
              {(a11y) => (
                <input {...a11y} {...form.register("name")} className="input" autoComplete="off" />
              )}
            </FormField>
            <FormField label="Role" required error={errors.role?.message}>
              {(a11y) => (
                <select {...a11y} {...form.register("role")} className="input">
                  {ROLES.map((role) => (
                    <option key={role.value} value={role.value}>
                      {role.label}
                    </option>
                  ))}
                </select>
              )}
            </FormField>
            <NewPasswordField
              label="Password"
              error={errors.password?.message}
              registration={form.register("password")}
            />
            <div className="dialog-actions">
              <Dialog.Close className="button" type="button">
                Cancel
              </Dialog.Close>
              <button type="submit" className="button primary" disabled={isSubmitting}>
                {isSubmitting ? "Creating…" : "Create user"}
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** A password being set (a new user's, or a reset): the policy hint and the browser's new-password. */
function NewPasswordField({
  label,
  error,
  registration,
}: {
  label: string;
  error: string | undefined;
  registration: UseFormRegisterReturn;
}) {
  return (
    <FormField label={label} required error={error} hint={PASSWORD_HINT}>
      {(a11y) => (
        <input
          {...a11y}
          {...registration}
          type="password"
          className="input"
          autoComplete="new-password"
        />
      )}
    </FormField>
  );
}

function ResetPasswordDialog({ user, onClose }: { user: AccountUser; onClose: () => void }) {
  const trpc = useTRPC();
  const update = useMutation(trpc.accounts.users.update.mutationOptions());
  const form = useForm<{ password: string }>({
    defaultValues: { password: "" },
    resolver: zodResolver(z.object({ password: z.string().min(1, "Enter a password.") })),
  });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async ({ password }) => {
    try {
      await update.mutateAsync({ id: user.id, password });
      toast.success(`Password of ${user.name} changed`);
      onClose();
    } catch (error) {
      form.setError("password", { message: describeProblem(error).message }, { shouldFocus: true });
    }
  });
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title className="dialog-title">Reset the password of {user.name}</Dialog.Title>
          <Dialog.Description className="dialog-body">
            The old password stops working at once.
          </Dialog.Description>
          <form onSubmit={(event) => void submit(event)} noValidate>
            <NewPasswordField
              label="New password"
              error={errors.password?.message}
              registration={form.register("password")}
            />
            <div className="dialog-actions">
              <Dialog.Close className="button" type="button">
                Cancel
              </Dialog.Close>
              <button type="submit" className="button primary" disabled={isSubmitting}>
                {isSubmitting ? "Saving…" : "Set password"}
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function DeleteUserDialog({ user, onClose }: { user: AccountUser; onClose: () => void }) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const remove = useMutation(trpc.accounts.users.delete.mutationOptions());
  return (
    <ConfirmDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title={`Delete user ${user.name}?`}
      confirmLabel="Delete user"
      pending={remove.isPending}
      onConfirm={() =>
        void remove.mutateAsync({ id: user.id }).then(
          async () => {
            toast.success(`User ${user.name} deleted`);
            onClose();
            await refreshAll();
          },
          (error: unknown) => toast.error(describeProblem(error).message),
        )
      }
    >
      <p>
        {user.name} can no longer sign in, and their API tokens and sessions stop working. The rules
        they changed stay as they are. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
