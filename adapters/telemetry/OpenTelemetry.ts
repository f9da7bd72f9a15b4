import type { Attributes } from "@opentelemetry/api"
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type Pg from "pg"

/**
 * The OpenTelemetry SDK behind Effect's tracer and metrics. Every SDK module is imported here,
 * on demand: a service with telemetry off never loads one (they weigh several MiB of heap).
 */

export class TelemetryError extends Schema.TaggedError<TelemetryError>()("TelemetryError", {
  message: Schema.String
}) {}

export interface ResourceOptions {
  /** `latchkey-oauth`, `latchkey-auth`; `OTEL_SERVICE_NAME` overrides it. */
  readonly serviceName: string
  /** The build version: `service.version`, and `auth.version` as the auth spec names it. */
  readonly version: string
}

const load = <A>(what: string, promise: () => Promise<A>) =>
  Effect.tryPromise({
    try: promise,
    catch: (cause) => new TelemetryError({ message: `cannot load ${what}: ${String(cause)}` })
  })

/**
 * Our defaults, under what `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_SERVICE_NAME` say (the SDK's own
 * environment detector reads them, percent-decoding as the specification asks).
 */
const resource = (options: ResourceOptions) =>
  Effect.map(
    load("@opentelemetry/resources", () => import("@opentelemetry/resources")),
    ({ resourceFromAttributes, detectResources, envDetector }) => {
      const defaults: Attributes = {
        "service.name": options.serviceName,
        "service.version": options.version,
        "auth.version": options.version
      }
      return resourceFromAttributes(defaults).merge(detectResources({ detectors: [envDetector] }))
    }
  )

/** `DEBUG=true`: the SDK reports what it does (exports, failures) on the console. */
export const diagnostics = Layer.effectDiscard(
  Effect.map(
    load("@opentelemetry/api", () => import("@opentelemetry/api")),
    ({ diag, DiagConsoleLogger, DiagLogLevel }) => {
      diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.DEBUG)
    }
  )
)

/**
 * Traces: Effect's spans become OpenTelemetry spans, exported over OTLP/HTTP to the collector
 * the standard `OTEL_EXPORTER_OTLP_*` variables name (default http://localhost:4318), in
 * batches. Tests pass their own span processor (an in-memory exporter).
 */
export const tracing = (options: ResourceOptions & { readonly spanProcessor?: SpanProcessor | undefined }) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const [tracer, sdk, otelResource, base, otlp] = yield* Effect.all([
        load("@effect/opentelemetry", () => import("@effect/opentelemetry/Tracer")),
        load("@effect/opentelemetry", () => import("@effect/opentelemetry/NodeSdk")),
        load("@effect/opentelemetry", () => import("@effect/opentelemetry/Resource")),
        load("@opentelemetry/sdk-trace-base", () => import("@opentelemetry/sdk-trace-base")),
        load(
          "@opentelemetry/exporter-trace-otlp-http",
          () => import("@opentelemetry/exporter-trace-otlp-http")
        )
      ])
      const processor = options.spanProcessor ?? new base.BatchSpanProcessor(new otlp.OTLPTraceExporter())
      return tracer.layer.pipe(
        Layer.provide(sdk.layerTracerProvider(processor)),
        Layer.provide(Layer.succeed(otelResource.Resource, yield* resource(options)))
      )
    })
  )

export type MetricsExporter =
  | { readonly _tag: "opentelemetry" }
  | { readonly _tag: "prometheus"; readonly host: string; readonly port: number }

/**
 * Metrics: Effect's metrics (HTTP requests, the domain counters), Node's runtime (event-loop
 * delay and utilisation, heap, GC), the process's CPU time and memory, and the database pool
 * (connections in use, idle, requests waiting). Exported over OTLP/HTTP every minute, or
 * served for Prometheus to scrape at `http://host:port/`.
 */
export const metrics = (
  options: ResourceOptions & { readonly exporter: MetricsExporter; readonly pool?: Pg.Pool | undefined }
) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const [effectMetrics, sdk, runtimeNode] = yield* Effect.all([
        load("@effect/opentelemetry", () => import("@effect/opentelemetry/Metrics")),
        load("@opentelemetry/sdk-metrics", () => import("@opentelemetry/sdk-metrics")),
        load(
          "@opentelemetry/instrumentation-runtime-node",
          () => import("@opentelemetry/instrumentation-runtime-node")
        )
      ])
      const otelResource = yield* load(
        "@effect/opentelemetry",
        () => import("@effect/opentelemetry/Resource")
      )
      const described = yield* resource(options)
      const producer = yield* effectMetrics.makeProducer.pipe(
        Effect.provideService(otelResource.Resource, described)
      )
      const exporter = options.exporter
      const reader =
        exporter._tag === "prometheus"
          ? yield* Effect.gen(function* () {
              const { PrometheusExporter } = yield* load(
                "@opentelemetry/exporter-prometheus",
                () => import("@opentelemetry/exporter-prometheus")
              )
              const prometheus = new PrometheusExporter({
                host: exporter.host,
                port: exporter.port,
                endpoint: "/",
                preventServerStart: true,
                metricProducers: [producer]
              })
              yield* Effect.acquireRelease(
                Effect.tryPromise({
                  try: () => prometheus.startServer(),
                  catch: (cause) =>
                    new TelemetryError({
                      message: `cannot serve metrics on ${exporter.host}:${exporter.port}: ${String(cause)}`
                    })
                }),
                () => Effect.promise(() => prometheus.stopServer())
              )
              return prometheus
            })
          : yield* Effect.map(
              load(
                "@opentelemetry/exporter-metrics-otlp-http",
                () => import("@opentelemetry/exporter-metrics-otlp-http")
              ),
              ({ OTLPMetricExporter }) =>
                new sdk.PeriodicExportingMetricReader({
                  exporter: new OTLPMetricExporter(),
                  metricProducers: [producer]
                })
            )
      const provider = yield* Effect.acquireRelease(
        Effect.sync(() => new sdk.MeterProvider({ resource: described, readers: [reader] })),
        (provider) => Effect.promise(() => provider.shutdown()).pipe(Effect.timeoutOption("3 seconds"))
      )
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          const runtime = new runtimeNode.RuntimeNodeInstrumentation()
          runtime.setMeterProvider(provider)
          runtime.enable()
          return runtime
        }),
        (runtime) => Effect.sync(() => runtime.disable())
      )
      const meter = provider.getMeter("latchkey")
      meter
        .createObservableCounter("process.cpu.time", {
          unit: "s",
          description: "CPU time used by the process"
        })
        .addCallback((result) => {
          const usage = process.cpuUsage()
          result.observe(usage.user / 1e6, { "cpu.mode": "user" })
          result.observe(usage.system / 1e6, { "cpu.mode": "system" })
        })
      meter
        .createObservableGauge("process.memory.usage", { unit: "By", description: "Resident set size" })
        .addCallback((result) => result.observe(process.memoryUsage.rss()))
      const pool = options.pool
      if (pool !== undefined) {
        meter
          .createObservableGauge("db.client.connection.count", {
            description: "Database connections, by state (used, idle)"
          })
          .addCallback((result) => {
            result.observe(pool.totalCount - pool.idleCount, { "db.client.connection.state": "used" })
            result.observe(pool.idleCount, { "db.client.connection.state": "idle" })
          })
        meter
          .createObservableGauge("db.client.connection.pending_requests", {
            description: "Requests waiting for a database connection"
          })
          .addCallback((result) => result.observe(pool.waitingCount))
      }
    })
  )
