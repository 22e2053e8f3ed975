import type { ReactNode } from "react";

/** Shown when a list has nothing yet: says what the thing is and invites creating the first one. */
export function EmptyState({
  title,
  children,
  action,
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="empty-state">
      <p className="empty-title">{title}</p>
      {children && <div className="empty-text">{children}</div>}
      {action}
    </div>
  );
}

/** Shown when a filter hides every row: distinct from "nothing yet", with a way out. */
export function NoMatch({ what, onClear }: { what: string; onClear: () => void }) {
  return (
    <div className="empty-state no-match" role="status">
      <p className="empty-title">No {what} match these filters.</p>
      <button type="button" className="button" onClick={onClear}>
        Clear filters
      </button>
    </div>
  );
}
