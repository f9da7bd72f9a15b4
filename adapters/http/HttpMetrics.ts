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

interface Series {
  readonly duration: Metric.Metric.Histogram<number>
  readonly requests: Metric.Metric.Counter<number>
}

/**
 * One tagged series per route, method and status, made once: tagging allocates, and the
 * combinations are few (unmatched paths share one series without a route).
 */
const series = new Map<string, Series>()

const seriesFor = (route: string | undefined, method: string, status: number): Series => {
  const key = `${route ?? ""} ${method} ${status}`
  let found = series.get(key)
  if (found === undefined) {
    const labels = [
      ...(route === undefined ? [] : [MetricLabel.make("http.route", route)]),
      MetricLabel.make("http.method", method),
      MetricLabel.make("http.status_code", String(status))
    ]
    found = {
      duration: Metric.taggedWithLabels(duration, labels),
      requests: Metric.taggedWithLabels(requests, labels)
    }
    series.set(key, found)
  }
  return found
}

/** Records one answered request; called by the server outside any fiber, hence `unsafeUpdate`. */
export const record = (route: string | undefined, method: string, status: number, seconds: number): void => {
  const { duration, requests } = seriesFor(route, method, status)
  duration.unsafeUpdate(seconds, [])
  requests.unsafeUpdate(1, [])
}
