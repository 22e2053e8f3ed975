import { zodResolver } from "@hookform/resolvers/zod";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { FormField } from "../components/FormField";
import { credentialsFor, type Credentials, type SignInRequirements } from "../lib/session";
import type { Outcome } from "../lib/session-store";

type SignInValues = Required<Credentials>;

function signInSchema(requirements: SignInRequirements) {
  const needsProject = requirements.signIn.fields.includes("project");
  return z.object({
    username: z.string().trim().min(1, "Enter your username."),
    password: z.string().min(1, "Enter your password."),
    project: needsProject ? z.string().trim().min(1, "Enter the project to work in.") : z.string(),
    domain: z.string(),
  });
}

/**
 * Username and password, plus project and domain under Keystone. The first empty field gets the
 * focus; after a refusal the password is cleared and focused again.
 */
export function SignInForm({
  requirements,
  defaults = {},
  onSignIn,
  submitLabel = "Sign in",
  extraActions,
}: {
  requirements: SignInRequirements;
  defaults?: Partial<Pick<Credentials, "username" | "project">>;
  onSignIn: (credentials: Credentials) => Promise<Outcome>;
  submitLabel?: string;
  extraActions?: React.ReactNode;
}) {
  const fields = new Set(requirements.signIn.fields);
  const defaultDomain = requirements.signIn.defaultDomain ?? "Default";
  const form = useForm<SignInValues>({
    defaultValues: {
      username: defaults.username ?? "",
      password: "",
      project: defaults.project ?? "",
      domain: defaultDomain,
    },
    resolver: zodResolver(signInSchema(requirements)),
  });
  const { errors, isSubmitting } = form.formState;
  const focusUsername = !defaults.username;

  const submit = form.handleSubmit(async (values) => {
    const outcome = await onSignIn(credentialsFor(requirements, values));
    if (outcome.ok) return;
    form.setError("root", { message: outcome.message });
    form.resetField("password");
    form.setFocus("password");
  });

  return (
    <form
      className="form sign-in-form"
      onSubmit={(event) => void submit(event)}
      noValidate
      aria-label="Sign in"
    >
      {errors.root?.message && (
        <p className="alert error" role="alert">
          {errors.root.message}
        </p>
      )}
      <FormField label="Username" required error={errors.username?.message}>
        {(a11y) => (
          <input
            {...a11y}
            {...form.register("username")}
            className="input"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            autoFocus={focusUsername}
          />
        )}
      </FormField>
      <FormField label="Password" required error={errors.password?.message}>
        {(a11y) => (
          <input
            {...a11y}
            {...form.register("password")}
            type="password"
            className="input"
            autoComplete="current-password"
            autoFocus={!focusUsername}
          />
        )}
      </FormField>
      {fields.has("project") && (
        <FormField
          label="Project"
          required
          error={errors.project?.message}
          hint="The Keystone project to work in; your roles in it decide what you may change."
        >
          {(a11y) => (
            <input
              {...a11y}
              {...form.register("project")}
              className="input"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
            />
          )}
        </FormField>
      )}
      {fields.has("domain") && (
        <FormField
          label="Domain"
          error={errors.domain?.message}
          hint={`The Keystone domain of your user and project; usually ${defaultDomain}.`}
        >
          {(a11y) => (
            <input
              {...a11y}
              {...form.register("domain")}
              className="input"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
            />
          )}
        </FormField>
      )}
      <div className="form-actions">
        {extraActions}
        <button type="submit" className="button primary" disabled={isSubmitting}>
          {isSubmitting ? "Signing in…" : submitLabel}
        </button>
      </div>
    </form>
  );
}
