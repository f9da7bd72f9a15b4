import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { HttpRequest, HttpResponse } from "../../../adapters/http/HttpMessage.js"
import * as HttpMessage from "../../../adapters/http/HttpMessage.js"
import * as Pipeline from "../../../adapters/http/Pipeline.js"

const request = (query = ""): HttpRequest => ({
  method: "POST",
  path: "/thing",
  route: "/thing",
  params: {},
  query,
  headers: {},
  body: "",
  clientIp: "203.0.113.9",
  requestId: "req-1"
})

/** A service whose every check records its name, and refuses when told to. */
const service = (refusing: ReadonlySet<string>) => {
  const ran: Array<string> = []
  const step =
    <A>(name: string, value: A) =>
    () =>
      Effect.suspend(() => {
        ran.push(name)
        return refusing.has(name) ? Effect.fail(name) : Effect.succeed(value)
      })
  const endpoint = Pipeline.make<{ anyone: undefined; user: string }, string, string, never>({
    callers: { anyone: { known: undefined }, user: step("caller", "alice") },
    limit: (limit) => step(`limit ${limit}`, undefined)(),
    captcha: step("captcha", undefined),
    // The refusal's name as the body, so a test sees which check answered.
    answer: () => (effect) =>
      Effect.catchAll(effect, (refused) => Effect.succeed(HttpMessage.json({ refused }, 400)))
  })
  return { ran, step, endpoint }
}

const answered = (response: HttpResponse) => JSON.parse(response.body ?? "null")

/** The checks of a contract using every step, in the order the pipeline must run them. */
const everyStep = (refusing: ReadonlySet<string>, limit: "first" | "beforeInput" | "ofInput") => {
  const { ran, step, endpoint } = service(refusing)
  const handler = endpoint(
    {
      caller: "user",
      captcha: true,
      limit:
        limit === "first"
          ? Pipeline.first("l")
          : limit === "beforeInput"
            ? Pipeline.beforeInput("l")
            : Pipeline.ofInput((input: string) => `l of ${input}`),
      requires: step("requires", undefined)(),
      input: step("input", "the input")
    },
    (input, caller) =>
      Effect.sync(() => {
        ran.push("handler")
        return HttpMessage.json({ input, caller })
      })
  )
  return { ran, handler }
}

const orders = {
  first: ["limit l", "captcha", "caller", "requires", "input", "handler"],
  beforeInput: ["captcha", "caller", "requires", "limit l", "input", "handler"],
  ofInput: ["captcha", "caller", "requires", "input", "limit l of the input", "handler"]
} as const

describe("Pipeline", () => {
  for (const limit of ["first", "beforeInput", "ofInput"] as const) {
    const order = orders[limit]
    it.effect(`runs a contract in one order, its rate limit counted ${limit}`, () =>
      Effect.gen(function* () {
        const { ran, handler } = everyStep(new Set(), limit)
        const response = yield* handler(request())
        expect(answered(response)).toEqual({ input: "the input", caller: "alice" })
        expect(ran).toEqual(order)
      })
    )

    it.effect(`lets the first refusal answer, and runs nothing after it (limit ${limit})`, () =>
      Effect.gen(function* () {
        const checks = order.filter((name) => name !== "handler")
        for (const [index, expected] of checks.entries()) {
          // Every check from this one on refuses: this one answers.
          const { ran, handler } = everyStep(new Set(checks.slice(index)), limit)
          const response = yield* handler(request())
          expect(response.status).toBe(400)
          expect(answered(response)).toEqual({ refused: expected })
          expect(ran).toEqual(checks.slice(0, index + 1))
        }
      })
    )
  }

  it.effect("runs only the steps a contract names; a caller without proof is known", () =>
    Effect.gen(function* () {
      const { ran, endpoint } = service(new Set())
      const handler = endpoint({ caller: "anyone", input: Pipeline.none }, (input, caller) =>
        Effect.succeed(HttpMessage.json({ input: input ?? "none", caller: caller ?? "nobody" }))
      )
      expect(answered(yield* handler(request()))).toEqual({ input: "none", caller: "nobody" })
      expect(ran).toEqual([])
    })
  )

  it.effect("answers a handler's own refusal through the service's table", () =>
    Effect.gen(function* () {
      const { endpoint } = service(new Set())
      const handler = endpoint({ caller: "user", input: Pipeline.none }, () => Effect.fail("the use case"))
      expect(answered(yield* handler(request()))).toEqual({ refused: "the use case" })
    })
  )

  it("refuses at start a route that asks for a check its service does not make", () => {
    const endpoint = Pipeline.make<{ anyone: undefined }, string, string, never>({
      callers: { anyone: { known: undefined } },
      answer: () => (effect) => Effect.catchAll(effect, () => Effect.succeed(HttpMessage.empty(400)))
    })
    const handle = () => Effect.succeed(HttpMessage.empty(204))
    expect(() => endpoint({ caller: "anyone", captcha: true, input: Pipeline.none }, handle)).toThrow(
      /captcha/
    )
    expect(() =>
      endpoint({ caller: "anyone", limit: Pipeline.first("l"), input: Pipeline.none }, handle)
    ).toThrow(/rate limit/)
  })

  it.effect("byQuery picks the endpoint by a query parameter, any other value the fallback", () =>
    Effect.gen(function* () {
      const answer = (name: string) => () => Effect.succeed(HttpMessage.json({ name }))
      const handler = Pipeline.byQuery("grant_type", { password: answer("password") }, answer("otherwise"))
      expect(answered(yield* handler(request("grant_type=password")))).toEqual({ name: "password" })
      expect(answered(yield* handler(request("grant_type=constructor")))).toEqual({ name: "otherwise" })
      expect(answered(yield* handler(request()))).toEqual({ name: "otherwise" })
      // The first of a repeated parameter, as Go's `r.FormValue` reads it.
      expect(answered(yield* handler(request("grant_type=password&grant_type=x")))).toEqual({
        name: "password"
      })
    })
  )
})
