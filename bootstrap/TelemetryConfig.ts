import * as Config from "effect/Config"
import * as Either from "effect/Either"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import type { MetricsExporter } from "../adapters/telemetry/OpenTelemetry.js"
import * as ConfigValues from "./ConfigValues.js"

/**
 * Logs, traces and metrics, as the auth spec's observability section defines them, for both
 * services. The auth service reads its variables with the `AUTHSVC_` prefix (LOG_LEVEL and
 * OTEL_* never take it); the oauth service reads them unprefixed.
 */
export interface TelemetryConfig {
  readonly logLevel: LogLevel.LogLevel
  /** `LOG_FILE`: JSON lines are also appended here. */
  readonly logFile: Option.Option<string>
  /** `TRACING_ENABLED` with `TRACING_EXPORTER=opentelemetry` (another name: off, for the auth service). */
  readonly tracing: boolean
  /**
   * `METRICS_ENABLED` with `METRICS_EXPORTER`; none when metrics are off or, for the auth service,
   * the exporter is unknown or Prometheus's address unusable.
   */
  readonly metrics: Option.Option<MetricsExporter>
  /**
   * `REQUEST_ID_HEADER`: an incoming header to inherit the request id from (for the auth service,
   * none when no header can have its name).
   */
  readonly requestIdHeader: Option.Option<string>
  /** `DEBUG=true`: the telemetry SDK's own diagnostics. */
  readonly debug: boolean
}

export type Prefix = "" | "AUTHSVC_"

/**
 * `DEBUG` is also read by the many tools built on the `debug` package (`DEBUG=express:*`), so
 * only a true value means anything to us; any other value is not an error.
 */
const debugFlag = (name: string) =>
  Config.string(name).pipe(
    Config.withDefault("false"),
    Config.map((value) => ["1", "t", "T", "TRUE", "true", "True"].includes(value))
  )

/**
 * The exporter named as Supabase Auth reads it: a name it does not know is taken and exports
 * nothing (its own test configuration turns tracing on with `TRACING_EXPORTER=default`), which
 * ConfigWarnings says at start.
 */
const knownExporter = <A extends string>(name: string, allowed: ReadonlyArray<A>) =>
  Config.string(name).pipe(
    Config.withDefault(allowed[0] ?? ""),
    Config.map((value) => Option.fromNullable(allowed.find((candidate) => candidate === value)))
  )

/** The exporter named: one of `allowed` (the first by default), or a configuration error. */
const exporter = <A extends string>(name: string, allowed: ReadonlyArray<A>) =>
  knownExporter(name, allowed).pipe(
    Config.mapOrFail((found) =>
      Option.isSome(found)
        ? Either.right(found)
        : Either.left(ConfigValues.invalid(name, `expected ${allowed.join(" or ")}`))
    )
  )

/** How each service reads an exporter's name: the auth service as Supabase Auth does, the oauth service strictly. */
const exporterFor = (prefix: Prefix) => (prefix === "AUTHSVC_" ? knownExporter : exporter)

/**
 * A value Supabase Auth takes without a check, as each service reads it: the auth service as
 * Supabase Auth does, a value that cannot be used being none (a request-id header no request can
 * carry, a Prometheus address no listener can take; ConfigWarnings names it at start); the oauth
 * service strictly, a configuration error.
 */
const checkedFor =
  (prefix: Prefix) =>
  <A>(name: string, parse: (value: string) => Either.Either<A, string>, fallback?: string) => {
    const raw =
      fallback === undefined ? Config.string(name) : Config.string(name).pipe(Config.withDefault(fallback))
    return prefix === "AUTHSVC_"
      ? Config.map(raw, (value) => Either.getRight(parse(value)))
      : Config.map(ConfigValues.check(name, raw, parse), Option.some)
  }

export const prometheusHostName = "OTEL_EXPORTER_PROMETHEUS_HOST"
export const prometheusPortName = "OTEL_EXPORTER_PROMETHEUS_PORT"

export const tracingExporters = ["opentelemetry"] as const
export const metricsExporters = ["opentelemetry", "prometheus"] as const

export const read = (prefix: Prefix): Config.Config<TelemetryConfig> =>
  Config.all({
    logLevel: ConfigValues.logLevel,
    logFile: Config.option(Config.nonEmptyString(`${prefix}LOG_FILE`)),
    tracingEnabled: ConfigValues.bool(`${prefix}TRACING_ENABLED`, false),
    tracingExporter: exporterFor(prefix)(`${prefix}TRACING_EXPORTER`, tracingExporters),
    metricsEnabled: ConfigValues.bool(`${prefix}METRICS_ENABLED`, false),
    metricsExporter: exporterFor(prefix)(`${prefix}METRICS_EXPORTER`, metricsExporters),
    prometheusHost: checkedFor(prefix)(prometheusHostName, ConfigValues.parseListenHost, "0.0.0.0"),
    prometheusPort: checkedFor(prefix)(prometheusPortName, ConfigValues.parsePort, "9100"),
    requestIdHeader: Config.option(
      checkedFor(prefix)(`${prefix}REQUEST_ID_HEADER`, ConfigValues.parseHeaderName)
    ),
    debug: debugFlag(`${prefix}DEBUG`)
  }).pipe(
    Config.map(
      (values): TelemetryConfig => ({
        logLevel: values.logLevel,
        logFile: values.logFile,
        tracing: values.tracingEnabled && Option.isSome(values.tracingExporter),
        metrics: Option.flatMap(
          Option.filter(values.metricsExporter, () => values.metricsEnabled),
          (chosen): Option.Option<MetricsExporter> =>
            chosen === "prometheus"
              ? Option.map(
                  Option.all({ host: values.prometheusHost, port: values.prometheusPort }),
                  ({ host, port }) => ({ _tag: "prometheus", host, port })
                )
              : Option.some({ _tag: "opentelemetry" })
        ),
        requestIdHeader: Option.flatten(values.requestIdHeader),
        debug: values.debug
      })
    )
  )
