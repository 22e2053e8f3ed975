import { LosslessNumber } from "lossless-json";
import { z } from "zod";
import { DECIMAL_TEXT } from "./decimal.js";

/*
 * CloudKitty's v1 answers, as read off the wire (keys as CloudKitty names them). Everything read
 * is validated: a proxy's HTML page or a later release's changed shape fails loudly here instead
 * of turning into wrong prices downstream. Unknown keys are dropped.
 */

/** Cost or level: CloudKitty sends strings; a JSON number is accepted as its exact source text. */
const ZDecimalText = z
  .union([z.string(), z.instanceof(LosslessNumber).transform((n) => n.value)])
  .pipe(z.string().regex(DECIMAL_TEXT, "not a decimal number"));

const ZInteger = z
  .instanceof(LosslessNumber)
  .transform((n) => Number(n.value))
  .pipe(z.number().int().safe());

const ZId = z.string().min(1);
const ZRuleType = z.enum(["flat", "rate"]);

/**
 * CloudKitty 23 (2025.2) gives rules validity dates and an audit trail, and keeps deleted rules
 * (lists leave them out). Absent before 23. Ended and future rules are listed like active ones, so
 * whoever imports or compares a 23+ target must look at `start` and `end`. WSME writes the dates
 * in ISO 8601 without a zone; they are kept as sent.
 */
const ZLifecycle = {
  name: z.string().nullish(),
  description: z.string().nullish(),
  start: z.string().nullish(),
  end: z.string().nullish(),
  created_at: z.string().nullish(),
  created_by: z.string().nullish(),
  updated_by: z.string().nullish(),
  deleted: z.string().nullish(),
  deleted_by: z.string().nullish(),
};

export const ZService = z.object({ service_id: ZId, name: z.string() });
export const ZField = z.object({ field_id: ZId, name: z.string(), service_id: ZId });
export const ZGroup = z.object({ group_id: ZId, name: z.string() });

export const ZMapping = z.object({
  mapping_id: ZId,
  /** "" for a service mapping created without a value, null when created with `"value": null`. */
  value: z.string().nullable(),
  type: ZRuleType,
  cost: ZDecimalText,
  service_id: ZId.nullable(),
  field_id: ZId.nullable(),
  group_id: ZId.nullable(),
  tenant_id: z.string().nullable(),
  ...ZLifecycle,
});

export const ZThreshold = z.object({
  threshold_id: ZId,
  level: ZDecimalText,
  type: ZRuleType,
  cost: ZDecimalText,
  service_id: ZId.nullable(),
  field_id: ZId.nullable(),
  group_id: ZId.nullable(),
  tenant_id: z.string().nullable(),
  ...ZLifecycle,
});

export const ZScript = z.object({
  ...ZLifecycle,
  script_id: ZId,
  name: z.string(),
  data: z.string(),
  checksum: z.string(),
});

export const ZModule = z
  .object({
    module_id: ZId,
    description: z.string().nullable(),
    enabled: z.boolean(),
    "hot-config": z.boolean(),
    priority: ZInteger,
  })
  .transform(({ "hot-config": hotConfig, ...rest }) => ({ ...rest, hot_config: hotConfig }));

export const ZServiceList = z.object({ services: z.array(ZService) });
export const ZFieldList = z.object({ fields: z.array(ZField) });
export const ZGroupList = z.object({ groups: z.array(ZGroup) });
export const ZMappingList = z.object({ mappings: z.array(ZMapping) });
export const ZThresholdList = z.object({ thresholds: z.array(ZThreshold) });
export const ZScriptList = z.object({ scripts: z.array(ZScript) });
export const ZModuleList = z.object({ modules: z.array(ZModule) });

/** `GET /v1/info/metrics`: each metric CloudKitty collects and the metadata it keeps of it. */
export const ZMetricList = z.object({
  metrics: z.array(
    z.object({
      metric_id: z.string(),
      metadata: z.array(z.string()).default([]),
      unit: z.string().nullish(),
    }),
  ),
});

/** CloudKitty's error body. */
export const ZFault = z.object({ faultcode: z.string(), faultstring: z.string() });

export type CkService = z.output<typeof ZService>;
export type CkField = z.output<typeof ZField>;
export type CkGroup = z.output<typeof ZGroup>;
export type CkMapping = z.output<typeof ZMapping>;
export type CkThreshold = z.output<typeof ZThreshold>;
export type CkScript = z.output<typeof ZScript>;
export type CkModule = z.output<typeof ZModule>;
export type CkRuleType = z.output<typeof ZRuleType>;
export type CkMetric = z.output<typeof ZMetricList>["metrics"][number];

/** Keystone's POST /v3/auth/tokens answer: only what finding the rating endpoint needs. */
export const ZKeystoneToken = z.object({
  token: z.object({
    expires_at: z.string().refine((text) => !Number.isNaN(Date.parse(text)), "not a date"),
    catalog: z
      .array(
        z.object({
          type: z.string(),
          endpoints: z.array(
            z.object({
              interface: z.string(),
              region: z.string().nullish(),
              region_id: z.string().nullish(),
              url: z.string(),
            }),
          ),
        }),
      )
      .default([]),
  }),
});
