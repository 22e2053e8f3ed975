import { useEffect } from "react";
import { PRODUCT } from "../lib/page-title";
import type { Credentials, SignInRequirements } from "../lib/session";
import type { Outcome } from "../lib/session-store";
import { SignInForm } from "./SignInForm";

export function SignInPage({
  requirements,
  notice,
  onSignIn,
}: {
  requirements: SignInRequirements;
  notice: string | null;
  onSignIn: (credentials: Credentials) => Promise<Outcome>;
}) {
  useEffect(() => {
    document.title = `Sign in · ${PRODUCT}`;
    return () => {
      document.title = PRODUCT;
    };
  }, []);
  const keystone = requirements.strategy === "keystone";
  return (
    <main className="session-page">
      <div className="panel sign-in-panel">
        <p className="brand sign-in-brand">
          <span className="brand-mark" aria-hidden="true">
            R
          </span>
          Ratecard <span className="brand-sub">rating console</span>
        </p>
        <h1>Sign in</h1>
        <p className="lead">
          {keystone
            ? "Use your OpenStack account: the same username, password and project as in Horizon or the openstack CLI."
            : "Use your Ratecard account. Ask a Ratecard administrator if you do not have one."}
        </p>
        {notice && (
          <p className="alert note" role="status">
            {notice}
          </p>
        )}
        <SignInForm requirements={requirements} onSignIn={onSignIn} />
      </div>
    </main>
  );
}
