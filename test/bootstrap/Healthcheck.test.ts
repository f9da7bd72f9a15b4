import { createServer, type Server } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Healthcheck from "../../bootstrap/Healthcheck.js"
import { freePort } from "../support/FreePort.js"

/** A loopback server that answers every request with `status`, or never answers. */
const answering = (status: number | "never") =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: Server; readonly url: string }>((resume) => {
      const server = createServer((_, res) => {
        if (status === "never") return
        res.writeHead(status).end()
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed({ server, url: `http://127.0.0.1:${port}/health/ready` }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ url }) => url))

describe("the image's health check", () => {
  it("asks the ports the environment gives the services, then their defaults, each once", () => {
    expect(Healthcheck.defaultTargets({})).toEqual([
      "http://127.0.0.1:8081/health/ready",
      "http://127.0.0.1:8080/health/ready"
    ])
    expect(
      Healthcheck.defaultTargets({ AUTHSVC_API_PORT: "9999", PORT: "8080", GOTRUE_API_PORT: "nope" })
    ).toEqual([
      "http://127.0.0.1:9999/health/ready",
      "http://127.0.0.1:8080/health/ready",
      "http://127.0.0.1:8081/health/ready"
    ])
  })

  it("ready: one answered 200 and none answered otherwise; named URLs must all answer 200", () => {
    const ready = { url: "a", _tag: "Ready" } as const
    const absent = { url: "b", _tag: "Absent" } as const
    const notReady = { url: "c", _tag: "NotReady", reason: "answered 503" } as const
    expect(Healthcheck.isReady([ready, absent], false)).toBe(true)
    expect(Healthcheck.isReady([absent, absent], false)).toBe(false)
    expect(Healthcheck.isReady([ready, notReady], false)).toBe(false)
    expect(Healthcheck.isReady([ready], true)).toBe(true)
    expect(Healthcheck.isReady([ready, absent], true)).toBe(false)
  })

  it.live("tells a 200, a 503, a port nobody listens on and a server that never answers apart", () =>
    Effect.gen(function* () {
      const ok = yield* answering(200)
      const unavailable = yield* answering(503)
      const stalled = yield* answering("never")
      const nobody = `http://127.0.0.1:${yield* freePort}/health/ready`
      const outcomes = yield* Effect.promise(() =>
        Promise.all([
          Healthcheck.probe(ok),
          Healthcheck.probe(unavailable),
          Healthcheck.probe(nobody),
          Healthcheck.probe(stalled, 300)
        ])
      )
      expect(outcomes.map((outcome) => outcome._tag)).toEqual(["Ready", "NotReady", "Absent", "NotReady"])
      expect(outcomes[3]).toMatchObject({ reason: "no answer in time" })
      expect(yield* Effect.promise(() => Healthcheck.main([ok], {}))).toBe(0)
      expect(yield* Effect.promise(() => Healthcheck.main([ok, unavailable], {}))).toBe(1)
    }).pipe(Effect.scoped)
  )
})
