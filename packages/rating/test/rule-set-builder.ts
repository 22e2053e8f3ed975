import type {
  HashmapField,
  HashmapGroup,
  HashmapMapping,
  HashmapRuleSet,
  HashmapService,
  HashmapThreshold,
  RuleType,
} from "../src/index.js";

export interface RuleOptions {
  group?: string | null;
  tenant?: string | null;
}

/** Builds REST-shaped rule sets in load order, with readable sequential ids. */
export class RuleSetBuilder {
  private readonly services: HashmapService[] = [];
  private readonly fields: HashmapField[] = [];
  private readonly groups: HashmapGroup[] = [];
  private readonly mappings: HashmapMapping[] = [];
  private readonly thresholds: HashmapThreshold[] = [];

  service(name: string): string {
    const id = `service-${this.services.length + 1}`;
    this.services.push({ service_id: id, name });
    return id;
  }

  field(serviceId: string, name: string): string {
    const id = `field-${this.fields.length + 1}`;
    this.fields.push({ field_id: id, name, service_id: serviceId });
    return id;
  }

  group(name: string): string {
    const id = `group-${this.groups.length + 1}`;
    this.groups.push({ group_id: id, name });
    return id;
  }

  serviceMapping(
    serviceId: string,
    type: RuleType,
    cost: string,
    options: RuleOptions = {},
  ): string {
    return this.mapping({ service_id: serviceId, value: null, type, cost }, options);
  }

  fieldMapping(
    fieldId: string,
    value: string,
    type: RuleType,
    cost: string,
    options: RuleOptions = {},
  ): string {
    return this.mapping({ field_id: fieldId, value, type, cost }, options);
  }

  serviceThreshold(
    serviceId: string,
    level: string,
    type: RuleType,
    cost: string,
    options: RuleOptions = {},
  ): string {
    return this.threshold({ service_id: serviceId, level, type, cost }, options);
  }

  fieldThreshold(
    fieldId: string,
    level: string,
    type: RuleType,
    cost: string,
    options: RuleOptions = {},
  ): string {
    return this.threshold({ field_id: fieldId, level, type, cost }, options);
  }

  build(): HashmapRuleSet {
    return {
      services: [...this.services],
      fields: [...this.fields],
      groups: [...this.groups],
      mappings: [...this.mappings],
      thresholds: [...this.thresholds],
    };
  }

  private mapping(
    rule: Pick<HashmapMapping, "service_id" | "field_id" | "value" | "type" | "cost">,
    options: RuleOptions,
  ): string {
    const id = `mapping-${this.mappings.length + 1}`;
    this.mappings.push({
      mapping_id: id,
      service_id: null,
      field_id: null,
      ...rule,
      group_id: options.group ?? null,
      tenant_id: options.tenant ?? null,
    });
    return id;
  }

  private threshold(
    rule: Pick<HashmapThreshold, "service_id" | "field_id" | "level" | "type" | "cost">,
    options: RuleOptions,
  ): string {
    const id = `threshold-${this.thresholds.length + 1}`;
    this.thresholds.push({
      threshold_id: id,
      service_id: null,
      field_id: null,
      ...rule,
      group_id: options.group ?? null,
      tenant_id: options.tenant ?? null,
    });
    return id;
  }
}
