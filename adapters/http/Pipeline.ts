import * as Effect from "effect/Effect"
import type { HttpRequest, HttpResponse } from "./HttpMessage.js"
import type { Handler } from "./Route.js"

/** Reads something of a request, or refuses it with the service's error. */
export type Decoder<A, E, R> = (request: HttpRequest) => Effect.Effect<A, E, R>

/**
 * When a route's rate limit counts a request, in the pipeline's one order (`make`):
 *
 * - `first`: before anything else is read, so a refused captcha or caller still counts
 *   (Supabase Auth's limiter middleware, outside its captcha check);
 * - `beforeInput`: after the captcha, the caller and the preconditions, before the input is
 *   decoded (Supabase Auth's /token, which counts in its handler);
 * - `ofInput`: after the input, which decides the limit (POST /signup: anonymous sign-ins
 *   have one of their own).
 */
export type LimitRule<L, In> = FixedLimit<L> | InputLimit<L, In>

export interface FixedLimit<L> {
  readonly at: "first" | "beforeInput"
  readonly limit: L
}

export interface InputLimit<L, In> {
  readonly at: "ofInput"
  readonly limit: (input: In) => L
}

export const first = <L>(limit: L): FixedLimit<L> => ({ at: "first", limit })
export const beforeInput = <L>(limit: L): FixedLimit<L> => ({ at: "beforeInput", limit })
export const ofInput = <L, In>(limit: (input: In) => L): InputLimit<L, In> => ({ at: "ofInput", limit })

/**
 * An endpoint's contract: who may call it, whether a captcha guards it, which rate limit counts
 * it, what must hold of the service first, and the input it reads. A service's route table
 * states one per route; `make` runs it.
 */
export interface Contract<K, L, In, E, R> {
  readonly caller: K
  readonly captcha?: boolean
  readonly limit?: LimitRule<L, In>
  /** A precondition of the service (a feature switched on), checked once the caller is known. */
  readonly requires?: Effect.Effect<void, E, R>
  /** The body, query or path parameters the handler needs, decoded; `none` when it needs none. */
  readonly input: Decoder<In, E, R> | Known<In>
}

/** A value that needs no reading or proof: what a handler gets for it on every request. */
export interface Known<A> {
  readonly known: A
}

/** The input of an endpoint that reads nothing of the request. */
export const none: Known<undefined> = { known: undefined }

/** What a service checks, each once per request at most, and how it answers a refusal. */
export interface Checks<Callers, L, E, R> {
  /** Each kind of caller: how a request proves it, or what it is without proof. */
  readonly callers: { readonly [K in keyof Callers]: Decoder<Callers[K], E, R> | Known<Callers[K]> }
  readonly limit?: (limit: L, request: HttpRequest) => Effect.Effect<void, E, R>
  readonly captcha?: Decoder<void, E, R>
  /** The service's error table: a refusal becomes its answer. */
  readonly answer: (
    request: HttpRequest
  ) => (effect: Effect.Effect<HttpResponse, E, R>) => Effect.Effect<HttpResponse, never, R>
}

/** The part of an endpoint the contract leaves to it: one use case, its answer encoded. */
export type Handle<In, C, E, R> = (
  input: In,
  caller: C,
  request: HttpRequest
) => Effect.Effect<HttpResponse, E, R>

export type Endpoint<Callers, L, E, R> = <K extends keyof Callers, In>(
  contract: Contract<K, L, In, E, R>,
  handle: Handle<In, Callers[K], E, R>
) => Handler<R>

type Step<E, R> = (request: HttpRequest) => Effect.Effect<void, E, R>

/** `step`, then `next` with the same request; `next` alone when there is no step. */
const then = <A, E, R>(step: Step<E, R> | undefined, next: Decoder<A, E, R>): Decoder<A, E, R> =>
  step === undefined ? next : (request) => Effect.flatMap(step(request), () => next(request))

const defined = <A>(value: A | undefined, what: string): A => {
  if (value === undefined) throw new Error(`a route asks for ${what}, which this service does not check`)
  return value
}

/**
 * The one pipeline: every route's contract runs in this order, the first refusal answering.
 *
 * 1. the rate limit counted `first`;
 * 2. the captcha;
 * 3. the caller;
 * 4. the precondition (`requires`);
 * 5. the rate limit counted `beforeInput`;
 * 6. the input;
 * 7. the rate limit counted `ofInput`;
 *
 * then the handler, with the input and the caller; the service's error table answers any
 * refusal. The steps a contract leaves out are left out of its route when the table is built,
 * not skipped on each request: a route that only needs a signed-in user costs what calling the
 * check and then the handler by hand costs.
 */
export const make =
  <Callers, L, E, R>(checks: Checks<Callers, L, E, R>): Endpoint<Callers, L, E, R> =>
  <K extends keyof Callers, In>(contract: Contract<K, L, In, E, R>, handle: Handle<In, Callers[K], E, R>) => {
    const rule = contract.limit
    const count =
      rule === undefined ? undefined : defined(checks.limit, `a rate limit (${String(rule.limit)})`)
    const limitAt = (at: "first" | "beforeInput"): Step<E, R> | undefined => {
      if (count === undefined || rule === undefined || rule.at !== at) return undefined
      const limit = rule.limit
      return (request) => count(limit, request)
    }
    const byInput =
      count !== undefined && rule !== undefined && rule.at === "ofInput" ? rule.limit : undefined
    const captcha = contract.captcha === true ? defined(checks.captcha, "a captcha") : undefined
    const requires = contract.requires
    const beforeInput = limitAt("beforeInput")
    const input = contract.input

    // From the handler back to the first check, each stage built once.
    const decoded: (caller: Callers[K], request: HttpRequest) => Effect.Effect<HttpResponse, E, R> =
      "known" in input
        ? (caller, request) => handle(input.known, caller, request)
        : byInput === undefined || count === undefined
          ? (caller, request) => Effect.flatMap(input(request), (value) => handle(value, caller, request))
          : (caller, request) =>
              Effect.flatMap(input(request), (value) =>
                Effect.flatMap(count(byInput(value), request), () => handle(value, caller, request))
              )
    const preconditions: Step<E, R> | undefined =
      requires === undefined
        ? beforeInput
        : beforeInput === undefined
          ? () => requires
          : (request) => Effect.zipRight(requires, beforeInput(request))
    const check = checks.callers[contract.caller]
    const identified: Decoder<HttpResponse, E, R> =
      "known" in check
        ? then(preconditions, (request) => decoded(check.known, request))
        : preconditions === undefined
          ? (request) => Effect.flatMap(check(request), (caller) => decoded(caller, request))
          : (request) =>
              Effect.flatMap(check(request), (caller) =>
                Effect.flatMap(preconditions(request), () => decoded(caller, request))
              )
    const guarded = then(limitAt("first"), then(captcha, identified))
    return (request) => checks.answer(request)(guarded(request))
  }

/**
 * One route whose query parameter `name` picks the endpoint (Supabase Auth's
 * `POST /token?grant_type=…`), each with a contract of its own; `otherwise` for any other value
 * or none. A map, so that a value such as `constructor` picks nothing.
 */
export const byQuery = <R>(
  name: string,
  cases: Readonly<Record<string, Handler<R>>>,
  otherwise: Handler<R>
): Handler<R> => {
  const table = new Map(Object.entries(cases))
  return (request) => (table.get(new URLSearchParams(request.query).get(name) ?? "") ?? otherwise)(request)
}

/** The query's parameters, for an endpoint that reads them as they come (no parameter refused). */
export const query = (request: HttpRequest): Effect.Effect<URLSearchParams> =>
  Effect.succeed(new URLSearchParams(request.query))

/** A parameter of the route's path template (`{name}`), percent-decoded; empty if absent. */
export const param =
  (name: string) =>
  (request: HttpRequest): Effect.Effect<string> =>
    Effect.succeed(request.params[name] ?? "")
