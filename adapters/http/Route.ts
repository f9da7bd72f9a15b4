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
 * A plain request in, a plain response out: no per-request wrappers of a framework between
 * the socket and the use case (docs/decisions/0005-hot-path.md), pages and redirects included.
 */
export type Handler<R> = (request: HttpRequest) => Effect.Effect<HttpResponse, never, R>

export interface Route<R> {
  readonly method: Method
  /** A template: literal segments and `{name}` parameters. */
  readonly path: string
  readonly options: RouteOptions
  readonly handle: Handler<R>
}

export const make = <R>(
  method: Method,
  path: string,
  handle: Handler<R>,
  options: RouteOptions = {}
): Route<R> => ({ method, path, options, handle })
