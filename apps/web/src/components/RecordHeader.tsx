import type { ReactNode } from "react";
import { Allowed } from "../session/permissions";
import { CopyableId } from "./CopyableId";

/** The header of a record's page: what it is, its name and ID, and "Delete <noun>" after any other action. */
export function RecordHeader({
  eyebrow,
  name,
  id,
  noun,
  onDelete,
  action,
}: {
  eyebrow: ReactNode;
  name: string;
  id: string;
  /** As in "Delete service" and "service ID". */
  noun: string;
  onDelete: () => void;
  action?: ReactNode;
}) {
  const deleteButton = (
    <Allowed to="writeRules">
      <button type="button" className="button danger-outline" onClick={onDelete}>
        {`Delete ${noun}`}
      </button>
    </Allowed>
  );
  return (
    <header className="page-header">
      <div>
        <p className="eyebrow">{eyebrow}</p>
        <h1>{name}</h1>
        <CopyableId id={id} label={`${noun} ID`} />
      </div>
      {action ? (
        <div className="header-actions">
          {action}
          {deleteButton}
        </div>
      ) : (
        deleteButton
      )}
    </header>
  );
}
