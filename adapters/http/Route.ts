import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as Effect from "effect/Effect"
import type { HttpRequest, HttpResponse } from "./HttpMessage.js"

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

export interface RouteOptions {
  /**
   * The media types a body may have (`application/json`); a request with a body of another
   * type is refused before the handler runs. Absent: the route reads no body.
   */
  readonly accepts?: ReadonlyArray<string>
  /** Cross-origin callers may use the route: CORS headers and preflights (Server.ts). */
  readonly cors?: boolean
}

/**
 * The fast lane: a plain request in, a plain response out. For the endpoints every busy
 * deployment calls on each request; no platform wrappers (docs/decisions/0005-hot-path.md).
 */
export type Handler<R> = (request: HttpRequest) => Effect.Effect<HttpResponse, never, R>

/**
 * The platform lane: the same request, with `@effect/platform`'s request (cookies, URL) at
 * hand and its response (cookies, redirects, pages) to build. For browser pages and the rest.
 */
export type Page<R> = (
  request: HttpRequest
) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest>

interface Common {
  readonly method: Method
  /** A template: literal segments and `{name}` parameters. */
  readonly path: string
  readonly options: RouteOptions
}

export type Route<R> =
  | (Common & { readonly lane: "fast"; readonly handle: Handler<R> })
  | (Common & { readonly lane: "platform"; readonly handle: Page<R> })

export const fast = <R>(
  method: Method,
  path: string,
  handle: Handler<R>,
  options: RouteOptions = {}
): Route<R> => ({
  method,
  path,
  options,
  lane: "fast",
  handle
})

export const page = <R>(
  method: Method,
  path: string,
  handle: Page<R>,
  options: RouteOptions = {}
): Route<R> => ({
  method,
  path,
  options,
  lane: "platform",
  handle
})
