import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricState from "effect/MetricState"
import * as HttpMetrics from "../../../adapters/http/HttpMetrics.js"

/** The `http.server.requests` series in the registry: their labels and counts. */
const requestSeries = Effect.map(Metric.snapshot, (pairs) =>
  pairs.flatMap((pair) =>
    pair.metricKey.name === "http.server.requests" && MetricState.isCounterState(pair.metricState)
      ? [
          {
            labels: Object.fromEntries(pair.metricKey.tags.map((label) => [label.key, label.value])),
            count: Number(pair.metricState.count)
          }
        ]
      : []
  )
)

// The registry is the process's, and so shared by the tests below: they run in order.
describe("HttpMetrics", () => {
  it.effect("records a method outside the semantic conventions' list as _OTHER", () =>
    Effect.gen(function* () {
      HttpMetrics.record("/token", "POST", 200, 0.01)
      HttpMetrics.record("/token", "BREW", 405, 0.01)
      HttpMetrics.record("/token", "PROPFIND", 405, 0.01)
      const methods = (yield* requestSeries).map((series) => series.labels["http.method"])
      expect(methods.sort()).toEqual(["POST", "_OTHER"])
    })
  )

  it.effect("makes at most maxSeries series; the rest share the overflow series", () =>
    Effect.gen(function* () {
      const beyond = 100
      // Distinct routes, as a route table bug passing raw paths would make.
      const made = (yield* requestSeries).filter(
        (series) => series.labels["otel.metric.overflow"] === undefined
      )
      const fresh = HttpMetrics.maxSeries - made.length + beyond
      for (let n = 0; n < fresh; n++) HttpMetrics.record(`/raw/${n}`, "GET", 200, 0.01)
      const all = yield* requestSeries
      const overflow = all.filter((series) => series.labels["otel.metric.overflow"] === "true")
      expect(all.length - overflow.length).toBe(HttpMetrics.maxSeries)
      expect(overflow).toEqual([{ labels: { "otel.metric.overflow": "true" }, count: beyond }])
      // The last within the limit has its own series, the first beyond it has none.
      const routes = new Set(all.map((series) => series.labels["http.route"]))
      expect(routes.has(`/raw/${fresh - beyond - 1}`)).toBe(true)
      expect(routes.has(`/raw/${fresh - beyond}`)).toBe(false)
      // A combination that has its series keeps it.
      HttpMetrics.record("/token", "POST", 200, 0.01)
      const token = (yield* requestSeries).find(
        (series) => series.labels["http.route"] === "/token" && series.labels["http.method"] === "POST"
      )
      expect(token?.count).toBe(2)
    })
  )
})
