import type { ColumnDef } from "@tanstack/react-table";
import type { ReactNode } from "react";
import { Allowed } from "../session/permissions";
import { CopyableId } from "./CopyableId";

// Columns shared by the tables of named records (services, fields, groups, scripts). A record's
// noun ("group") gives the texts: header "Group ID", copy label "group ID", "Delete group <name>".

interface NamedRecord {
  name: string;
}

function capitalized(noun: string): string {
  return noun.charAt(0).toUpperCase() + noun.slice(1);
}

/** The sortable name, rendered as a link to the record; the caller builds the typed `Link`. */
export function nameLinkColumn<T extends NamedRecord>(
  renderLink: (record: T) => ReactNode,
): ColumnDef<T, string> {
  return {
    id: "name",
    accessorFn: (record) => record.name,
    header: "Name",
    cell: (info) => renderLink(info.row.original),
  };
}

/** The record's `<noun>_id`, with a copy button. */
export function idColumn<T>(noun: string, idOf: (record: T) => string): ColumnDef<T, string> {
  return {
    id: `${noun}_id`,
    accessorFn: idOf,
    header: `${capitalized(noun)} ID`,
    enableSorting: false,
    cell: (info) => <CopyableId id={info.getValue()} label={`${noun} ID`} />,
  };
}

/** A Delete button per row, for users who may change rules; `onDelete` opens the confirmation. */
export function deleteActionColumn<T extends NamedRecord>(
  noun: string,
  onDelete: (record: T) => void,
): ColumnDef<T> {
  return {
    id: "actions",
    header: () => <span className="visually-hidden">Actions</span>,
    cell: (info) => (
      <Allowed to="writeRules">
        <button
          type="button"
          className="button small danger-outline"
          onClick={() => onDelete(info.row.original)}
          aria-label={`Delete ${noun} ${info.row.original.name}`}
        >
          Delete
        </button>
      </Allowed>
    ),
  };
}
