import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { ApiTokenTable, type ApiToken } from "../components/ApiTokens";
import { FormField } from "../components/FormField";
import { QueryState } from "../components/QueryState";
import { useRefreshAll } from "../hooks";
import { cliCommand } from "../lib/accounts";
import { describeProblem } from "../lib/errors";
import { useSession } from "../session/SessionProvider";
import { useTRPC } from "../trpc";

const ZTokenForm = z.object({
  name: z.string().trim().min(1, "Name the token after what uses it, for example billing-cron."),
  expiresInDays: z.coerce
    .number<string>({ error: "Enter a whole number of days." })
    .int("Enter a whole number of days.")
    .min(1, "A token lasts at least one day.")
    .max(365, "A token lasts at most 365 days."),
});

interface TokenFormValues {
  name: string;
  expiresInDays: string;
}

export function MyTokensPage() {
  const trpc = useTRPC();
  const { session } = useSession();
  const tokens = useQuery(trpc.accounts.tokens.list.queryOptions({ userId: session.user.id }));
  const [created, setCreated] = useState<{ secret: string; token: ApiToken } | null>(null);

  if (session.strategy !== "local") {
    return (
      <section>
        <h1>My API tokens</h1>
        <p className="alert note" role="note">
          API tokens are for local accounts. Under Keystone, scripts and the CLI authenticate with
          Keystone itself.
        </p>
      </section>
    );
  }
  return (
    <section className="account-page">
      <header className="page-header">
        <div>
          <h1>My API tokens</h1>
          <p className="lead">
            Tokens let scripts and the <code>cloudkitty</code> CLI act as you ({session.user.name})
            without your password. Revoke a token as soon as it is no longer needed.
          </p>
        </div>
      </header>
      {created ? (
        <NewTokenSecret created={created} onDone={() => setCreated(null)} />
      ) : (
        <CreateTokenForm onCreated={setCreated} />
      )}
      <div className="panel">
        <h2 className="panel-title">Your tokens</h2>
        <QueryState query={tokens}>
          {(data) => (
            <ApiTokenTable
              tokens={data.tokens}
              showOwner={false}
              label="My API tokens"
              emptyText="Create a token for each script or machine, so that each can be revoked on its own."
            />
          )}
        </QueryState>
      </div>
    </section>
  );
}

function CreateTokenForm({
  onCreated,
}: {
  onCreated: (created: { secret: string; token: ApiToken }) => void;
}) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const create = useMutation(trpc.accounts.tokens.create.mutationOptions());
  const form = useForm<TokenFormValues, unknown, z.output<typeof ZTokenForm>>({
    defaultValues: { name: "", expiresInDays: "90" },
    resolver: zodResolver(ZTokenForm),
  });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (input) => {
    try {
      const created = await create.mutateAsync(input);
      form.reset();
      onCreated(created);
      toast.success(`Token “${input.name}” created`);
      await refreshAll();
    } catch (error) {
      const problem = describeProblem(error);
      form.setError("root", { message: problem.message });
    }
  });
  return (
    <form
      className="panel form"
      onSubmit={(event) => void submit(event)}
      noValidate
      aria-label="Create an API token"
    >
      <h2 className="panel-title">Create an API token</h2>
      {errors.root?.message && (
        <p className="alert error" role="alert">
          {errors.root.message}
        </p>
      )}
      <FormField
        label="Token name"
        required
        error={errors.name?.message}
        hint="What will use it: a script, a host, a person's laptop."
      >
        {(a11y) => (
          <input {...a11y} {...form.register("name")} className="input" autoComplete="off" />
        )}
      </FormField>
      <FormField
        label="Expires in (days)"
        required
        error={errors.expiresInDays?.message}
        hint="From 1 to 365 days."
      >
        {(a11y) => (
          <input
            {...a11y}
            {...form.register("expiresInDays")}
            className="input narrow"
            inputMode="numeric"
          />
        )}
      </FormField>
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={isSubmitting}>
          {isSubmitting ? "Creating…" : "Create token"}
        </button>
      </div>
    </form>
  );
}

function copy(text: string, what: string) {
  navigator.clipboard
    .writeText(text)
    .then(() => toast.success(`${what} copied`))
    .catch(() => toast.error("The browser refused to copy; select the text instead."));
}

/** The secret, shown once: the server keeps only its hash. */
function NewTokenSecret({
  created,
  onDone,
}: {
  created: { secret: string; token: ApiToken };
  onDone: () => void;
}) {
  const command = cliCommand(window.location.origin, created.secret);
  return (
    <section className="panel form" aria-label="New API token">
      <h2 className="panel-title">Token “{created.token.name}” created</h2>
      <p className="alert note" role="note">
        <strong>Copy the token now.</strong> Ratecard stores only a hash of it and cannot show it
        again. Anyone holding it can act as you until it expires or is revoked.
      </p>
      <div className="form-field">
        <span className="form-label" id="new-token-label">
          API token
        </span>
        <div className="secret-box">
          <code aria-labelledby="new-token-label" data-testid="new-token-secret">
            {created.secret}
          </code>
          <button
            type="button"
            className="button small"
            onClick={() => copy(created.secret, "Token")}
          >
            Copy token
          </button>
        </div>
      </div>
      <div className="form-field">
        <span className="form-label" id="new-token-cli">
          Use it with the cloudkitty CLI
        </span>
        <div className="secret-box">
          <code aria-labelledby="new-token-cli">{command}</code>
          <button type="button" className="button small" onClick={() => copy(command, "Command")}>
            Copy command
          </button>
        </div>
      </div>
      <div className="form-actions">
        <button type="button" className="button primary" onClick={onDone}>
          I have copied the token
        </button>
      </div>
    </section>
  );
}
