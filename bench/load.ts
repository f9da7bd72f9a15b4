/**
 * The load generator, run as a child process of bench/oauth.ts so that autocannon does not
 * share the server's event loop. It receives one LoadRequest over IPC, runs a warm-up and then
 * the measured run (two separate autocannon runs, so the parent knows when measuring starts),
 * and answers with a LoadMessage.
 */
import autocannon from "autocannon"
import type { LoadMessage, LoadRequest, Scenario, Summary } from "./protocol.js"

const send = (message: LoadMessage) =>
  new Promise<void>((resolve) => {
    if (process.send === undefined) {
      console.log(JSON.stringify(message))
      resolve()
    } else process.send(message, () => resolve())
  })

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()

interface Plan {
  readonly request: autocannon.Request
  readonly taken: () => number
  readonly exhausted: () => boolean
}

/** The request of a scenario; refresh and introspection take their token per request. */
const planOf = (scenario: Scenario): Plan => {
  switch (scenario.kind) {
    case "refresh": {
      const pool = scenario.refreshTokens
      let next = 0
      let exhausted = false
      const headers = { "content-type": "application/x-www-form-urlencoded" }
      return {
        request: {
          method: "POST",
          path: "/token",
          headers,
          setupRequest: (request) => {
            const token = pool[next]
            if (token === undefined) exhausted = true
            else next++
            // A dry pool sends a token the server cannot know: a 400, which fails the run.
            const body = form({
              grant_type: "refresh_token",
              client_id: scenario.clientId,
              refresh_token: token ?? "lkr_pool-exhausted"
            })
            return { ...request, headers, body }
          }
        },
        taken: () => next,
        exhausted: () => exhausted
      }
    }
    case "introspect": {
      const pool = scenario.accessTokens
      let next = 0
      const headers = {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Bearer ${scenario.introspectionToken}`
      }
      return {
        request: {
          method: "POST",
          path: "/introspect",
          headers,
          setupRequest: (request) => {
            const token = pool[next % pool.length] ?? ""
            next++
            return { ...request, headers, body: form({ token, token_type_hint: "access_token" }) }
          }
        },
        taken: () => 0,
        exhausted: () => false
      }
    }
    case "register":
      return {
        request: {
          method: "POST",
          path: "/register",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(scenario.metadata)
        },
        taken: () => 0,
        exhausted: () => false
      }
    case "discovery":
      return {
        request: { method: "GET", path: "/.well-known/oauth-authorization-server" },
        taken: () => 0,
        exhausted: () => false
      }
  }
}

const summarise = (result: autocannon.Result): Summary => ({
  requestsPerSecond: result.requests.average,
  requests: result.requests.total,
  seconds: result.duration,
  p50: result.latency.p50,
  p99: result.latency.p99,
  max: result.latency.max,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  statusCodes: Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0])
  )
})

const run = async (load: LoadRequest) => {
  const plan = planOf(load.scenario)
  const options = (duration: number): autocannon.Options => ({
    url: load.url,
    connections: load.connections,
    pipelining: 1,
    duration,
    // Non-2xx answers stay in the latency figures (the default): they are failures here.
    excludeErrorStats: false,
    requests: [plan.request]
  })
  const warmup = await autocannon(options(load.warmupSeconds))
  await send({ type: "measuring" })
  const cpuBefore = process.cpuUsage()
  const startedAt = process.hrtime.bigint()
  const measured = await autocannon(options(load.durationSeconds))
  const cpu = process.cpuUsage(cpuBefore)
  const elapsedMicros = Number(process.hrtime.bigint() - startedAt) / 1000
  await send({
    type: "done",
    warmup: summarise(warmup),
    measured: summarise(measured),
    poolTaken: plan.taken(),
    poolExhausted: plan.exhausted(),
    cpuPercent: ((cpu.user + cpu.system) / elapsedMicros) * 100
  })
}

process.once("message", (message: LoadRequest) => {
  run(message).then(
    () => process.disconnect?.(),
    async (error: unknown) => {
      await send({
        type: "failed",
        message: error instanceof Error ? (error.stack ?? error.message) : String(error)
      })
      process.exitCode = 1
      process.disconnect?.()
    }
  )
})
