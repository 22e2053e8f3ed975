import { useQueryClient } from "@tanstack/react-query";
import { createContext, useContext, useEffect, useSyncExternalStore, type ReactNode } from "react";
import type { Session } from "../lib/session";
import type { Outcome, SessionStore } from "../lib/session-store";
import { SessionEndedDialog } from "./SessionEndedDialog";
import { SignInPage } from "./SignInPage";

interface SessionContextValue {
  session: Session;
  signOut: () => Promise<Outcome>;
}

const SessionContext = createContext<SessionContextValue | null>(null);

/** The signed-in session; only the console inside `SessionProvider` can ask. */
export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error("useSession() is used outside <SessionProvider>.");
  return value;
}

/**
 * Shows the console only to a signed-in user: the sign-in page otherwise, with the address kept so
 * that a deep link opens after signing in. When the session ends mid-use, a sign-in dialog covers
 * the page instead, so nothing typed is lost.
 */
export function SessionProvider({ store, children }: { store: SessionStore; children: ReactNode }) {
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const queryClient = useQueryClient();

  useEffect(() => {
    void store.load();
  }, [store]);

  switch (state.status) {
    case "loading":
      return (
        <p className="session-status" role="status">
          Checking your session…
        </p>
      );
    case "unreachable":
      return (
        <main className="session-page">
          <div className="alert error" role="alert">
            <p className="alert-title">The server is not answering</p>
            <p>{state.message}</p>
            <button type="button" className="button" onClick={() => void store.load()}>
              Retry
            </button>
          </div>
        </main>
      );
    case "signedOut":
      return (
        <SignInPage
          requirements={state.requirements}
          notice={state.notice}
          onSignIn={(credentials) => store.signIn(credentials)}
        />
      );
    case "signedIn": {
      const signOut = async () => {
        const outcome = await store.signOut();
        // The next user must not see what this one loaded.
        if (outcome.ok) queryClient.clear();
        return outcome;
      };
      return (
        <SessionContext.Provider value={{ session: state.session, signOut }}>
          {children}
          {state.ended && state.session.strategy !== "noauth" && (
            <SessionEndedDialog
              session={state.session}
              onSignIn={(credentials) => store.signIn(credentials)}
              onSignOut={signOut}
            />
          )}
        </SessionContext.Provider>
      );
    }
  }
}
