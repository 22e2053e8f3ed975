import type { ReactNode } from "react";
import type { Permission, Permissions } from "../lib/session";
import { useSession } from "./SessionProvider";

// What the signed-in user may do, as the server computed it from its policy: the one place the
// console decides which controls to show. The server enforces the same rules on every request.

export function useCan(): Permissions {
  return useSession().session.can;
}

/** Renders its children only when the user has the permission. */
export function Allowed({
  to,
  children,
  fallback = null,
}: {
  to: Permission;
  children: ReactNode;
  fallback?: ReactNode;
}) {
  return <>{useCan()[to] ? children : fallback}</>;
}

const NOTICE: Record<Permission, { title: string; text: string }> = {
  writeRules: {
    title: "Read only.",
    text: "Your role can read the rating rules but not change them.",
  },
  updateModules: {
    title: "Read only.",
    text: "Your role can read the rating modules but not change them.",
  },
  manageAccounts: { title: "Not allowed.", text: "Only administrators manage accounts." },
  preview: { title: "Not allowed.", text: "Your role may not preview prices." },
  readAudit: { title: "Not allowed.", text: "Only administrators can see the history of changes." },
  seeWarnings: { title: "Not allowed.", text: "Your role may not see the pricing warnings." },
  acknowledgeWarnings: {
    title: "Read only.",
    text: "Your role can read the pricing warnings but not acknowledge them.",
  },
  manageTargets: {
    title: "Not allowed.",
    text: "Only administrators manage the CloudKitty deployments Ratecard imports from and applies to.",
  },
};

/** Says why a page reached by its address offers no way to change anything. */
export function ReadOnlyNotice({
  permission,
  children,
}: {
  permission: Permission;
  children?: ReactNode;
}) {
  return (
    <p className="alert note" role="note">
      <strong>{NOTICE[permission].title}</strong> {children ?? NOTICE[permission].text}
    </p>
  );
}

/** The notice, shown only to users without the permission. */
export function ReadOnlyUnless({
  permission,
  children,
}: {
  permission: Permission;
  children?: ReactNode;
}) {
  return (
    <Allowed
      to={permission}
      fallback={<ReadOnlyNotice permission={permission}>{children}</ReadOnlyNotice>}
    >
      {null}
    </Allowed>
  );
}
