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

// Database rows -> the REST contract's objects, keys in CloudKitty's order.

export const renderService = (row: Pick<ServiceRow, "id" | "name">): TService => ({
  service_id: row.id,
  name: row.name,
});

export const renderField = (row: Pick<FieldRow, "id" | "name" | "serviceId">): TField => ({
  field_id: row.id,
  name: row.name,
  service_id: row.serviceId,
});

export const renderGroup = (row: Pick<GroupRow, "id" | "name">): TGroup => ({
  group_id: row.id,
  name: row.name,
});

export const renderMapping = (row: MappingRow): TMapping => ({
  mapping_id: row.id,
  value: row.value,
  type: row.type as TRuleType,
  cost: row.cost,
  service_id: row.serviceId,
  field_id: row.fieldId,
  group_id: row.groupId,
  tenant_id: row.tenantId,
});

export const renderThreshold = (row: ThresholdRow): TThreshold => ({
  threshold_id: row.id,
  level: row.level,
  type: row.type as TRuleType,
  cost: row.cost,
  service_id: row.serviceId,
  field_id: row.fieldId,
  group_id: row.groupId,
  tenant_id: row.tenantId,
});

export const renderScript = (row: ScriptRow, withData = true): TScript =>
  withData
    ? { script_id: row.id, name: row.name, data: row.data, checksum: row.checksum }
    : { script_id: row.id, name: row.name, checksum: row.checksum };

export const renderRatingModule = (row: RatingModuleRow): TRatingModule => ({
  module_id: row.id,
  description: row.description,
  enabled: row.enabled,
  "hot-config": row.hotConfig,
  priority: row.priority,
});
