import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

// Prometheus metrics for the operators of a fleet of instances: requests by route and status, the
// read snapshot's effect, the rule counts, and Node's own process metrics. Served on /metrics.

/** What the server reports about its parts when Prometheus scrapes. */
export interface MetricSources {
  /** The read snapshot's counters since start and what it keeps now. */
  snapshot: () => { hits: number; misses: number; answers: number; bytes: number };
  /** Rule sets loaded and compiled for pricing since start, and their total time. */
  ruleSets: () => { loads: number; loadSeconds: number };
  /** PostgreSQL's connection pool; absent on SQLite (no pool). */
  pool?: () => { total: number; idle: number; waiting: number; max: number };
  /** Rows per kind of rating object, counted in the database at scrape time. */
  ruleCounts: () => Promise<Record<string, number>>;
}

export interface ServerMetrics {
  /** Counts one answered request (the access log calls it when the answer is done). */
  record(method: string, route: string, status: number, seconds: number): void;
  contentType: string;
  /** The text exposition format, for GET /metrics. */
  render(): Promise<string>;
}

export function createServerMetrics(sources: MetricSources): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ["method", "route", "status"] as const;
  const requests = new Counter({
    name: "ratecard_http_requests_total",
    help: "HTTP requests answered, by method, route template and status",
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "ratecard_http_request_duration_seconds",
    help: "Time from a request's arrival to the end of its answer",
    labelNames,
    // Kept answers take well under a millisecond; writes wait for an fsync; large lists and quotes
    // take tens of milliseconds.
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const snapshotCounter = (name: string, help: string, read: (s: SnapshotState) => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        // A counter's value is set from the snapshot's own running count at scrape time.
        this.reset();
        this.inc(read(sources.snapshot()));
      },
    });
  snapshotCounter(
    "ratecard_read_snapshot_hits_total",
    "GET answers served from the read snapshot",
    (s) => s.hits,
  );
  snapshotCounter(
    "ratecard_read_snapshot_misses_total",
    "Cacheable GET answers computed by the router (first read after a change)",
    (s) => s.misses,
  );
  new Counter({
    name: "ratecard_rule_set_loads_total",
    help: "Rule sets loaded and compiled for quotes and previews (once per database change that a price needs)",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(sources.ruleSets().loads);
    },
  });
  new Counter({
    name: "ratecard_rule_set_load_seconds_total",
    help: "Time spent loading and compiling rule sets",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(sources.ruleSets().loadSeconds);
    },
  });
  new Gauge({
    name: "ratecard_read_snapshot_bytes",
    help: "Bytes of answers the read snapshot keeps (READ_CACHE_MB bounds it)",
    registers: [registry],
    collect() {
      this.set(sources.snapshot().bytes);
    },
  });
  new Gauge({
    name: "ratecard_read_snapshot_answers",
    help: "Answers the read snapshot keeps",
    registers: [registry],
    collect() {
      this.set(sources.snapshot().answers);
    },
  });
  const pool = sources.pool;
  if (pool) {
    new Gauge({
      name: "ratecard_database_connections",
      help: "PostgreSQL connections of this instance's pool, by state (in_use, idle) and its size (max)",
      labelNames: ["state"],
      registers: [registry],
      collect() {
        const { total, idle, max } = pool();
        this.set({ state: "in_use" }, total - idle);
        this.set({ state: "idle" }, idle);
        this.set({ state: "max" }, max);
      },
    });
    new Gauge({
      name: "ratecard_database_waiting_requests",
      help: "Queries waiting for a free PostgreSQL connection",
      registers: [registry],
      collect() {
        this.set(pool().waiting);
      },
    });
  }
  new Gauge({
    name: "ratecard_rating_objects",
    help: "Rating objects in the database, by kind",
    labelNames: ["kind"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [kind, count] of Object.entries(await sources.ruleCounts()))
        this.set({ kind }, count);
    },
  });

  // One counter and one histogram series per method, route and status, looked up once: their
  // number is bounded by the route templates, and neither metric is ever reset.
  const series = new Map<
    string,
    {
      counter: ReturnType<typeof requests.labels>;
      histogram: ReturnType<typeof duration.labels>;
    }
  >();
  return {
    record(method, route, status, seconds) {
      const key = `${method} ${status} ${route}`;
      let one = series.get(key);
      if (!one) {
        const labels = { method, route, status: String(status) };
        one = { counter: requests.labels(labels), histogram: duration.labels(labels) };
        series.set(key, one);
      }
      one.counter.inc();
      one.histogram.observe(seconds);
    },
    contentType: registry.contentType,
    render: () => registry.metrics(),
  };
}

type SnapshotState = ReturnType<MetricSources["snapshot"]>;
