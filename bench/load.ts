/**
 * The load generator, run as a child process of bench/oauth.ts and bench/auth.ts so that
 * autocannon does not share the server's event loop. It receives one LoadRequest over IPC, runs
 * a warm-up and then the measured run (two separate autocannon runs, so the parent knows when
 * measuring starts), and answers with a LoadMessage. A request of several streams runs one
 * autocannon instance per stream at the same time, in both phases.
 */
import autocannon from "autocannon"
import { Secret, TOTP } from "otpauth"
import type {
  FactorChallenge,
  LoadMessage,
  LoadRequest,
  Scenario,
  StreamResult,
  Summary
} from "./protocol.js"

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

const fixed = (request: autocannon.Request): Plan => ({ request, taken: () => 0, exhausted: () => false })

/**
 * A request that presents each token of `pool` once, in turn. A dry pool sends `dry`, a token
 * the server cannot know: a 400 (or 401), which fails the run.
 */
const presentingOnce = (
  pool: ReadonlyArray<string>,
  dry: string,
  make: (token: string) => autocannon.Request
): Plan => {
  let next = 0
  let exhausted = false
  return {
    request: {
      ...make(dry),
      setupRequest: (request) => {
        const token = pool[next]
        if (token === undefined) exhausted = true
        else next++
        return { ...request, ...make(token ?? dry) }
      }
    },
    taken: () => next,
    exhausted: () => exhausted
  }
}

const jsonHeaders = { "content-type": "application/json" }

/** The request of a scenario; the token-pool ones take their token per request. */
const planOf = (scenario: Scenario): Plan => {
  switch (scenario.kind) {
    case "auth-user": {
      const pool = scenario.accessTokens
      let next = 0
      return fixed({
        method: "GET",
        path: "/user",
        setupRequest: (request) => {
          const token = pool[next % pool.length] ?? ""
          next++
          return { ...request, headers: { authorization: `Bearer ${token}` } }
        }
      })
    }
    case "auth-refresh":
      return presentingOnce(scenario.refreshTokens, "pool-exhausted", (token) => ({
        method: "POST",
        path: "/token?grant_type=refresh_token",
        headers: jsonHeaders,
        body: JSON.stringify({ refresh_token: token })
      }))
    case "auth-password":
      return fixed({
        method: "POST",
        path: "/token?grant_type=password",
        headers: jsonHeaders,
        body: JSON.stringify({ email: scenario.email, password: scenario.password })
      })
    case "auth-signup": {
      // A new address per request: a taken one would be answered as a duplicate, not a sign-up.
      let next = 0
      return fixed({
        method: "POST",
        path: "/signup",
        headers: jsonHeaders,
        setupRequest: (request) => {
          next++
          const email = `${scenario.emailPrefix}${next}@example.com`
          return {
            ...request,
            headers: jsonHeaders,
            body: JSON.stringify({ email, password: scenario.password })
          }
        }
      })
    }
    case "auth-otp": {
      // A new address per request: an address that had a mail within SMTP_MAX_FREQUENCY would
      // be answered 429, and the bench measures the mail being queued.
      let next = 0
      return fixed({
        method: "POST",
        path: "/otp",
        headers: jsonHeaders,
        setupRequest: (request) => {
          next++
          return {
            ...request,
            headers: jsonHeaders,
            body: JSON.stringify({ email: `${scenario.emailPrefix}${next}@example.com` })
          }
        }
      })
    }
    case "auth-verify":
      // The bodies are built before the run so that the load generator only picks the next one.
      return presentingOnce(
        scenario.codes.map(({ email, code }) => JSON.stringify({ type: "email", email, token: code })),
        JSON.stringify({ type: "email", email: "pool-exhausted@example.com", token: "000000" }),
        (body) => ({ method: "POST", path: "/verify", headers: jsonHeaders, body })
      )
    case "auth-factor-verify": {
      // The code is the one of the moment the request is sent: a pool takes minutes to mint,
      // longer than a code's window.
      const dry: FactorChallenge = {
        accessToken: "",
        factorId: "pool-exhausted",
        challengeId: "",
        secret: ""
      }
      const byKey = new Map(scenario.challenges.map((challenge) => [challenge.challengeId, challenge]))
      return presentingOnce(
        scenario.challenges.map((challenge) => challenge.challengeId),
        "",
        (challengeId) => {
          const challenge = byKey.get(challengeId) ?? dry
          const code =
            challenge.secret === ""
              ? "000000"
              : new TOTP({ secret: Secret.fromBase32(challenge.secret) }).generate()
          return {
            method: "POST",
            path: `/factors/${challenge.factorId}/verify`,
            headers: { ...jsonHeaders, authorization: `Bearer ${challenge.accessToken}` },
            body: JSON.stringify({ challenge_id: challenge.challengeId, code })
          }
        }
      )
    }
    case "refresh": {
      const headers = { "content-type": "application/x-www-form-urlencoded" }
      return presentingOnce(scenario.refreshTokens, "lkr_pool-exhausted", (token) => ({
        method: "POST",
        path: "/token",
        headers,
        body: form({ grant_type: "refresh_token", client_id: scenario.clientId, refresh_token: token })
      }))
    }
    case "introspect": {
      const pool = scenario.accessTokens
      let next = 0
      const headers = {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Bearer ${scenario.introspectionToken}`
      }
      return fixed({
        method: "POST",
        path: "/introspect",
        headers,
        setupRequest: (request) => {
          const token = pool[next % pool.length] ?? ""
          next++
          return { ...request, headers, body: form({ token, token_type_hint: "access_token" }) }
        }
      })
    }
    case "register":
      return fixed({
        method: "POST",
        path: "/register",
        headers: jsonHeaders,
        body: JSON.stringify(scenario.metadata)
      })
    case "discovery":
      return fixed({ method: "GET", path: "/.well-known/oauth-authorization-server" })
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
  const streams = load.streams.map((stream) => ({
    connections: stream.connections,
    plan: planOf(stream.scenario)
  }))
  const phase = (duration: number) =>
    Promise.all(
      streams.map(({ connections, plan }) =>
        autocannon({
          url: load.url,
          connections,
          pipelining: 1,
          duration,
          // Non-2xx answers stay in the latency figures (the default): they are failures here.
          excludeErrorStats: false,
          requests: [plan.request]
        })
      )
    )
  const warmup = await phase(load.warmupSeconds)
  await send({ type: "measuring" })
  const cpuBefore = process.cpuUsage()
  const startedAt = process.hrtime.bigint()
  const measured = await phase(load.durationSeconds)
  const cpu = process.cpuUsage(cpuBefore)
  const elapsedMicros = Number(process.hrtime.bigint() - startedAt) / 1000
  const results = streams.map(({ plan }, index): StreamResult | undefined => {
    const before = warmup[index]
    const during = measured[index]
    return before === undefined || during === undefined
      ? undefined
      : {
          warmup: summarise(before),
          measured: summarise(during),
          poolTaken: plan.taken(),
          poolExhausted: plan.exhausted()
        }
  })
  await send({
    type: "done",
    streams: results.filter((result) => result !== undefined),
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
