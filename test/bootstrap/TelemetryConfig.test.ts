import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as ConfigReport from "../../bootstrap/ConfigReport.js"
import * as TelemetryConfig from "../../bootstrap/TelemetryConfig.js"

const load = (prefix: TelemetryConfig.Prefix, env: Record<string, string>) =>
  Effect.withConfigProvider(
    TelemetryConfig.read(prefix),
    ConfigProvider.fromMap(new Map(Object.entries(env)))
  ).pipe(Effect.either)

const problems = (result: Either.Either<unknown, Parameters<typeof ConfigReport.lines>[0]>) =>
  Either.isLeft(result) ? ConfigReport.lines(result.left) : []

describe("telemetry configuration", () => {
  it.effect("is off by default: info logs on stdout, no traces, no metrics, no inherited request id", () =>
    Effect.gen(function* () {
      const config = Either.getOrThrow(yield* load("", {}))
      expect(config).toEqual({
        logLevel: LogLevel.Info,
        logFile: Option.none(),
        tracing: false,
        metrics: Option.none(),
        requestIdHeader: Option.none(),
        debug: false
      })
    })
  )

  it.effect("reads the oauth service's variables unprefixed, booleans as GoTrue reads them", () =>
    Effect.gen(function* () {
      const config = Either.getOrThrow(
        yield* load("", {
          LOG_LEVEL: "DEBUG",
          LOG_FILE: "/var/log/latchkey.log",
          TRACING_ENABLED: "1",
          TRACING_EXPORTER: "opentelemetry",
          METRICS_ENABLED: "True",
          METRICS_EXPORTER: "prometheus",
          OTEL_EXPORTER_PROMETHEUS_PORT: "9464",
          REQUEST_ID_HEADER: "X-Request-Id",
          DEBUG: "true"
        })
      )
      expect(config.logLevel).toBe(LogLevel.Debug)
      expect(config.logFile).toEqual(Option.some("/var/log/latchkey.log"))
      expect(config.tracing).toBe(true)
      expect(config.metrics).toEqual(Option.some({ _tag: "prometheus", host: "0.0.0.0", port: 9464 }))
      expect(config.requestIdHeader).toEqual(Option.some("X-Request-Id"))
      expect(config.debug).toBe(true)
    })
  )

  it.effect("reads the auth service's with the AUTHSVC_ prefix, except LOG_LEVEL and OTEL_*", () =>
    Effect.gen(function* () {
      const config = Either.getOrThrow(
        yield* load("AUTHSVC_", {
          LOG_LEVEL: "warn",
          TRACING_ENABLED: "true",
          AUTHSVC_METRICS_ENABLED: "t",
          AUTHSVC_REQUEST_ID_HEADER: "X-Edge-Id",
          OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1"
        })
      )
      expect(config.logLevel).toBe(LogLevel.Warning)
      // TRACING_ENABLED without the prefix belongs to the other service.
      expect(config.tracing).toBe(false)
      expect(config.metrics).toEqual(Option.some({ _tag: "opentelemetry" }))
      expect(config.requestIdHeader).toEqual(Option.some("X-Edge-Id"))
    })
  )

  it.effect(
    "DEBUG is shared with tools built on the debug package: only a true value counts, nothing else fails",
    () =>
      Effect.gen(function* () {
        const config = Either.getOrThrow(yield* load("", { DEBUG: "express:*" }))
        expect(config.debug).toBe(false)
      })
  )

  it.effect("refuses wrong values with one line naming each variable and what it expects", () =>
    Effect.gen(function* () {
      const lines = problems(
        yield* load("", {
          TRACING_ENABLED: "yes",
          OTEL_EXPORTER_PROMETHEUS_HOST: "local host",
          OTEL_EXPORTER_PROMETHEUS_PORT: "99999",
          REQUEST_ID_HEADER: "not a header",
          LOG_LEVEL: "verbose"
        })
      )
      expect(lines).toEqual(
        expect.arrayContaining([
          "TRACING_ENABLED: expected true or false (also 1/0, t/f)",
          "OTEL_EXPORTER_PROMETHEUS_HOST: expected a host name or an IP address, e.g. 0.0.0.0 or 127.0.0.1",
          "OTEL_EXPORTER_PROMETHEUS_PORT: expected a port number, 0 to 65535",
          "REQUEST_ID_HEADER: expected an HTTP header name, e.g. X-Request-Id",
          "LOG_LEVEL: expected one of panic, fatal, error, warn, info, debug, trace"
        ])
      )
      expect(
        problems(yield* load("AUTHSVC_", { AUTHSVC_TRACING_ENABLED: "yes", LOG_LEVEL: "verbose" }))
      ).toEqual([
        "LOG_LEVEL: expected one of panic, fatal, error, warn, info, debug, trace",
        "AUTHSVC_TRACING_ENABLED: expected true or false (also 1/0, t/f)"
      ])
    })
  )

  it.effect(
    "takes what Supabase Auth never checks: a request-id header or Prometheus address no use can have",
    () =>
      Effect.gen(function* () {
        const config = Either.getOrThrow(
          yield* load("AUTHSVC_", {
            AUTHSVC_METRICS_ENABLED: "true",
            AUTHSVC_METRICS_EXPORTER: "prometheus",
            OTEL_EXPORTER_PROMETHEUS_PORT: "99999",
            AUTHSVC_REQUEST_ID_HEADER: "not a header"
          })
        )
        // Supabase Auth logs its listener's failure and serves on without metrics; no request can
        // carry such a header, so every request's id is made.
        expect(config.metrics).toEqual(Option.none())
        expect(config.requestIdHeader).toEqual(Option.none())
        const otlp = Either.getOrThrow(
          yield* load("AUTHSVC_", {
            AUTHSVC_METRICS_ENABLED: "true",
            OTEL_EXPORTER_PROMETHEUS_HOST: "local host"
          })
        )
        expect(otlp.metrics).toEqual(Option.some({ _tag: "opentelemetry" }))
      })
  )

  it.effect("refuses an exporter the oauth service does not know, naming what it expects", () =>
    Effect.gen(function* () {
      const lines = problems(yield* load("", { TRACING_EXPORTER: "jaeger", METRICS_EXPORTER: "statsd" }))
      expect(lines).toEqual([
        "TRACING_EXPORTER: expected opentelemetry",
        "METRICS_EXPORTER: expected opentelemetry or prometheus"
      ])
    })
  )

  it.effect(
    "takes an exporter the auth service does not know, as Supabase Auth does, exporting nothing",
    () =>
      Effect.gen(function* () {
        // Supabase Auth's own test configuration (hack/test.env) turns tracing on so.
        const config = Either.getOrThrow(
          yield* load("AUTHSVC_", {
            AUTHSVC_TRACING_ENABLED: "true",
            AUTHSVC_TRACING_EXPORTER: "default",
            AUTHSVC_METRICS_ENABLED: "true",
            AUTHSVC_METRICS_EXPORTER: "statsd"
          })
        )
        expect(config.tracing).toBe(false)
        expect(config.metrics).toEqual(Option.none())
        const known = Either.getOrThrow(
          yield* load("AUTHSVC_", {
            AUTHSVC_TRACING_ENABLED: "true",
            AUTHSVC_METRICS_ENABLED: "true",
            AUTHSVC_METRICS_EXPORTER: "prometheus"
          })
        )
        expect(known.tracing).toBe(true)
        expect(known.metrics).toEqual(Option.some({ _tag: "prometheus", host: "0.0.0.0", port: 9100 }))
      })
  )
})
