import { useBlocker } from "@tanstack/react-router";
import { ConfirmDialog } from "./ConfirmDialog";

/**
 * While `when` holds (something typed and not saved), leaving the page asks first: another page
 * of the console through a confirmation, closing or reloading the tab through the browser's own
 * prompt. A change of the query string alone (a tab, a filter) stays on the page and passes.
 */
export function UnsavedChangesGuard({
  when,
  what = "Your changes have not been saved.",
}: {
  when: boolean;
  /** What would be lost, in a sentence. */
  what?: string;
}) {
  const blocker = useBlocker({
    shouldBlockFn: ({ current, next }) => when && current.pathname !== next.pathname,
    enableBeforeUnload: () => when,
    withResolver: true,
  });
  if (blocker.status !== "blocked") return null;
  return (
    <ConfirmDialog
      open
      onOpenChange={(open) => !open && blocker.reset()}
      title="Leave without saving?"
      confirmLabel="Leave without saving"
      cancelLabel="Stay on this page"
      onConfirm={blocker.proceed}
    >
      <p>{what}</p>
    </ConfirmDialog>
  );
}
