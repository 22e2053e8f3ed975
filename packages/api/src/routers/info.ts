import { z } from "zod";
import { ZNoArguments } from "@ratecard/validators";
import { collectorConfig, getMetricInfo, listMetricInfo, type MetricInfo } from "../domain/info.js";
import { publicProcedure, router, type Context } from "../trpc.js";

const INFO = "/v1/info";
const tags = ["info"];

const ZMetricInfo = z.object({
  metric_id: z.string(),
  metadata: z.array(z.string()),
  unit: z.string(),
});
const ZMetricInfoList = z.object({ metrics: z.array(ZMetricInfo) });
const ZMetricName = z.strictObject({ metric_name: z.string().min(1) });
const ZServiceName = z.strictObject({ service_name: z.string().min(1) });

const listMetrics = ({ ctx }: { ctx: Context }): { metrics: MetricInfo[] } => ({
  metrics: listMetricInfo(ctx.metrics),
});

/** CloudKitty's `/v1/info`: the collector's metrics, read from `METRICS_FILE`. */
export const infoRouter = router({
  config: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${INFO}/config`,
        tags,
        summary: "The collector configuration (METRICS_FILE) as loaded",
        protect: false,
      },
    })
    .input(ZNoArguments)
    .output(z.record(z.string(), z.unknown()))
    .query(({ ctx }) => collectorConfig(ctx.metrics)),

  metrics: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${INFO}/metrics`,
        tags,
        summary: "List the collected metrics",
        protect: false,
      },
    })
    .input(ZNoArguments)
    .output(ZMetricInfoList)
    .query(listMetrics),

  metric: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${INFO}/metrics/{metric_name}`,
        tags,
        summary: "Get a collected metric by its alt_name",
        protect: false,
      },
    })
    .input(ZMetricName)
    .output(ZMetricInfo)
    .query(({ ctx, input }) => getMetricInfo(ctx.prisma, ctx.metrics, input.metric_name)),

  services: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${INFO}/services`,
        tags,
        summary: "List the collected metrics (deprecated alias of /v1/info/metrics)",
        deprecated: true,
        protect: false,
      },
    })
    .input(ZNoArguments)
    .output(ZMetricInfoList)
    .query(listMetrics),

  service: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${INFO}/services/{service_name}`,
        tags,
        summary: "Get a collected metric (deprecated alias of /v1/info/metrics/{metric_name})",
        deprecated: true,
        protect: false,
      },
    })
    .input(ZServiceName)
    .output(ZMetricInfo)
    .query(({ ctx, input }) => getMetricInfo(ctx.prisma, ctx.metrics, input.service_name)),

  /**
   * For the console: whether a metrics file is loaded, and each metric with the names a hashmap
   * field may take (`groupby` and `metadata`). RPC only.
   */
  collectorMetrics: publicProcedure
    .input(z.void())
    .output(
      z.object({
        configured: z.boolean(),
        metrics: z.array(
          z.object({
            name: z.string(),
            metric_id: z.string(),
            unit: z.string(),
            groupby: z.array(z.string()),
            metadata: z.array(z.string()),
          }),
        ),
      }),
    )
    .query(({ ctx }) => ({
      configured: ctx.metrics !== null,
      metrics: ctx.metrics?.metrics ?? [],
    })),
});
