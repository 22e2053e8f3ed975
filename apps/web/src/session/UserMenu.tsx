import { useState } from "react";
import { toast } from "sonner";
import { describeRoles } from "../lib/session";
import { useSession } from "./SessionProvider";

/** Who is signed in (user, project under Keystone, role) and Sign out; in noauth, that there is no sign-in. */
export function UserMenu() {
  const { session, signOut } = useSession();
  const [signingOut, setSigningOut] = useState(false);
  if (session.strategy === "noauth") {
    return <span className="session-user muted-on-dark">No authentication (development)</span>;
  }
  const { name, projectName } = session.user;
  return (
    <div className="session-user" role="group" aria-label="Signed-in user">
      <span>
        <span className="visually-hidden">Signed in as </span>
        <strong className="session-name">{name}</strong>
        {projectName && (
          <span className="session-project">
            <span aria-hidden="true"> · </span>
            <span className="visually-hidden">, project </span>
            {projectName}
          </span>
        )}
      </span>
      <span className="session-role" title="Your role">
        <span className="visually-hidden">, role </span>
        {describeRoles(session)}
      </span>
      <button
        type="button"
        className="button small on-dark"
        disabled={signingOut}
        onClick={() => {
          setSigningOut(true);
          void signOut().then((outcome) => {
            if (!outcome.ok) {
              setSigningOut(false);
              toast.error(outcome.message);
            }
          });
        }}
      >
        {signingOut ? "Signing out…" : "Sign out"}
      </button>
    </div>
  );
}
