import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"

/**
 * The request metrics of both services, as OpenTelemetry's HTTP semantic conventions name
 * them; exported by whatever reader the service's telemetry configures (OTLP or Prometheus).
 */
const duration = Metric.histogram(
  "http.server.request.duration",
  // Seconds: 1 ms to 10 s, OpenTelemetry's recommended buckets.
  MetricBoundaries.fromIterable([
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 10
  ]),
  "Duration of HTTP server requests, in seconds"
)

const requests = Metric.counter("http.server.requests", {
  description: "HTTP requests answered, by route, method and status",
  incremental: true
})

/**
 * The methods of RFC 9110 and PATCH (RFC 5789), the semantic conventions' list; any other is
 * recorded as `_OTHER`, as they require, so a client inventing methods invents no series.
 */
const knownMethods: ReadonlySet<string> = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "TRACE"
])

export const methodLabel = (method: string): string => (knownMethods.has(method) ? method : "_OTHER")

/**
 * Distinct route, method and status combinations recorded; later ones all go to one overflow
 * series marked `otel.metric.overflow`, as OpenTelemetry's SDKs do past their cardinality
 * limit. Every series lives in the metric registry and in every export for as long as the
 * process runs. The services have a few dozen routes, nine methods and a handful of statuses
 * per route, so real traffic stays far below 500; only a defect (a raw path used as a route,
 * say) could reach it, and then the limit keeps the exports' size in check.
 */
export const maxSeries = 500

interface Series {
  readonly duration: Metric.Metric.Histogram<number>
  readonly requests: Metric.Metric.Counter<number>
}

const tagged = (labels: ReadonlyArray<MetricLabel.MetricLabel>): Series => ({
  duration: Metric.taggedWithLabels(duration, labels),
  requests: Metric.taggedWithLabels(requests, labels)
})

const overflow = tagged([MetricLabel.make("otel.metric.overflow", "true")])

/** One tagged series per combination, made once: tagging allocates. */
const series = new Map<string, Series>()

const seriesFor = (route: string | undefined, method: string, status: number): Series => {
  const key = `${route ?? ""} ${method} ${status}`
  const found = series.get(key)
  if (found !== undefined) return found
  if (series.size >= maxSeries) return overflow
  const made = tagged([
    ...(route === undefined ? [] : [MetricLabel.make("http.route", route)]),
    MetricLabel.make("http.method", method),
    MetricLabel.make("http.status_code", String(status))
  ])
  series.set(key, made)
  return made
}

/**
 * Records one answered request; called by the server outside any fiber, hence `unsafeUpdate`.
 * `route` is the matched route's template (`/clients/{id}`), never the raw path, and absent for
 * a path no route matched.
 */
export const record = (route: string | undefined, method: string, status: number, seconds: number): void => {
  const { duration, requests } = seriesFor(route, methodLabel(method), status)
  duration.unsafeUpdate(seconds, [])
  requests.unsafeUpdate(1, [])
}
