import type {
  FieldRow,
  GroupRow,
  MappingRow,
  ScriptRow,
  ServiceRow,
  ThresholdRow,
  RatingModuleRow,
} from "@ratecard/db";
import type {
  TField,
  TGroup,
  TMapping,
  TRatingModule,
  TRuleType,
  TScript,
  TService,
  TThreshold,
} from "@ratecard/validators";
import { renderLifecycle } from "./lifecycle.js";

// Database rows -> the REST contract's objects, keys in CloudKitty's order, then the row's
// revision. The REST layer moves the revision out of the body into the ETag (CloudKitty's objects
// have no such key); RPC answers keep it, for the console to send back with its change.

/** An object with the revision of the row it shows. */
export type Revisioned<T> = T & { revision: number };

export const renderService = (
  row: Pick<ServiceRow, "id" | "name" | "revision">,
): Revisioned<TService> => ({
  service_id: row.id,
  name: row.name,
  revision: row.revision,
});

export const renderField = (
  row: Pick<FieldRow, "id" | "name" | "serviceId" | "revision">,
): Revisioned<TField> => ({
  field_id: row.id,
  name: row.name,
  service_id: row.serviceId,
  revision: row.revision,
});

export const renderGroup = (
  row: Pick<GroupRow, "id" | "name" | "revision">,
): Revisioned<TGroup> => ({
  group_id: row.id,
  name: row.name,
  revision: row.revision,
});

export const renderMapping = (row: MappingRow): Revisioned<TMapping> => ({
  mapping_id: row.id,
  value: row.value,
  type: row.type as TRuleType,
  cost: row.cost,
  service_id: row.serviceId,
  field_id: row.fieldId,
  group_id: row.groupId,
  tenant_id: row.tenantId,
  ...renderLifecycle(row),
  revision: row.revision,
});

export const renderThreshold = (row: ThresholdRow): Revisioned<TThreshold> => ({
  threshold_id: row.id,
  level: row.level,
  type: row.type as TRuleType,
  cost: row.cost,
  service_id: row.serviceId,
  field_id: row.fieldId,
  group_id: row.groupId,
  tenant_id: row.tenantId,
  ...renderLifecycle(row),
  revision: row.revision,
});

export const renderScript = (row: ScriptRow, withData = true): Revisioned<TScript> =>
  withData
    ? {
        script_id: row.id,
        name: row.name,
        data: row.data,
        checksum: row.checksum,
        ...scriptLifecycle(row),
        revision: row.revision,
      }
    : {
        script_id: row.id,
        name: row.name,
        checksum: row.checksum,
        ...scriptLifecycle(row),
        revision: row.revision,
      };

/** A script's lifecycle keys: its name is already its own (and never null). */
function scriptLifecycle(row: ScriptRow) {
  const { name: _name, ...lifecycle } = renderLifecycle(row);
  return lifecycle;
}

export const renderRatingModule = (row: RatingModuleRow): Revisioned<TRatingModule> => ({
  module_id: row.id,
  description: row.description,
  enabled: row.enabled,
  "hot-config": row.hotConfig,
  priority: row.priority,
  revision: row.revision,
});
