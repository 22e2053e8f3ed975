import { Dialog } from "radix-ui";
import { useState } from "react";
import { signInRequirementsFor, type Credentials, type Session } from "../lib/session";
import type { Outcome } from "../lib/session-store";
import { SignInForm } from "./SignInForm";

/**
 * Covers the page when the server stops accepting the session. It cannot be dismissed: the requests
 * that met the ended session wait behind it and are sent again after signing in.
 */
export function SessionEndedDialog({
  session,
  onSignIn,
  onSignOut,
}: {
  session: Session;
  onSignIn: (credentials: Credentials) => Promise<Outcome>;
  onSignOut: () => Promise<Outcome>;
}) {
  const [signOutError, setSignOutError] = useState<string | null>(null);
  const requirements = signInRequirementsFor(
    session.strategy === "keystone" ? "keystone" : "local",
  );
  const keep = (event: Event) => event.preventDefault();
  return (
    <Dialog.Root open>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content
          className="dialog"
          onEscapeKeyDown={keep}
          onPointerDownOutside={keep}
          onInteractOutside={keep}
        >
          <Dialog.Title className="dialog-title">Your session has ended</Dialog.Title>
          <Dialog.Description className="dialog-body">
            Sign in again to continue; your unsaved changes are kept.
          </Dialog.Description>
          {signOutError && (
            <p className="alert error" role="alert">
              {signOutError}
            </p>
          )}
          <SignInForm
            requirements={requirements}
            defaults={{
              username: session.user.name,
              ...(session.user.projectName && { project: session.user.projectName }),
            }}
            onSignIn={onSignIn}
            submitLabel="Sign in and continue"
            extraActions={
              <button
                type="button"
                className="button"
                onClick={() =>
                  void onSignOut().then((outcome) =>
                    setSignOutError(outcome.ok ? null : outcome.message),
                  )
                }
              >
                Discard changes and sign out
              </button>
            }
          />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
