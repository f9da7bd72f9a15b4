import type { SpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { PgPool } from "../adapters/postgres/PgPool.js"
import * as JsonLogger from "../adapters/telemetry/JsonLogger.js"
import * as OpenTelemetry from "../adapters/telemetry/OpenTelemetry.js"
import type { Prefix, TelemetryConfig } from "./TelemetryConfig.js"
import { version } from "./Version.js"

export interface TelemetryOptions {
  /** `latchkey-oauth` or `latchkey-auth`. */
  readonly serviceName: string
  readonly prefix: Prefix
  /** Tests collect spans in memory instead of exporting them. */
  readonly spanProcessor?: SpanProcessor | undefined
  /** `LOG_FILE`'s name as the operator wrote it (a `GOTRUE_` one), for the line about it. */
  readonly logFileVariable?: string | undefined
}

/**
 * Logs and traces of one service: the JSON logger, and the OpenTelemetry tracer when tracing
 * is on. While it is off the tracer is disabled outright, so that spans cost nothing
 * (application/Telemetry.ts).
 */
export const layer = (config: TelemetryConfig, options: TelemetryOptions) =>
  Layer.mergeAll(
    JsonLogger.layer({
      file: Option.getOrUndefined(config.logFile),
      variable: options.logFileVariable ?? `${options.prefix}LOG_FILE`,
      // The auth service starts as Supabase Auth does, which logs on without the file.
      unopenable: options.prefix === "AUTHSVC_" ? "warn" : "refuse"
    }),
    config.tracing
      ? OpenTelemetry.tracing({
          serviceName: options.serviceName,
          version,
          spanProcessor: options.spanProcessor
        })
      : Layer.setTracerEnabled(false),
    config.debug ? OpenTelemetry.diagnostics : Layer.empty
  )

/** Metrics of one service when they are on, with its database pool's figures. */
export const metrics = (config: TelemetryConfig, options: Pick<TelemetryOptions, "serviceName">) =>
  Option.match(config.metrics, {
    onNone: () => Layer.empty,
    onSome: (exporter) =>
      Layer.unwrapEffect(
        Effect.map(Effect.serviceOption(PgPool), (pool) =>
          OpenTelemetry.metrics({
            serviceName: options.serviceName,
            version,
            exporter,
            pool: Option.getOrUndefined(pool)
          })
        )
      )
  })
