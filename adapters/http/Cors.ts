import type { IncomingMessage, ServerResponse } from "node:http"

export interface CorsPolicy {
  /** `any`: every origin, no credentials. `reflect`: the caller's origin, credentials allowed. */
  readonly origin: "any" | "reflect"
  /**
   * `routes`: only the routes marked `cors` answer cross-origin callers (and their preflights).
   * `every answer`: every answer of the server carries the headers — every route, the 404 of an
   * unknown path, a 405, a 413, a 500 — and a preflight to any path succeeds, so that a browser
   * shows a script whatever the server answered rather than a CORS error, as a CORS middleware
   * wrapped around the whole router does.
   */
  readonly scope: "routes" | "every answer"
  readonly allowHeaders: ReadonlyArray<string>
  readonly exposeHeaders: ReadonlyArray<string>
  readonly maxAgeSeconds: number
}

/** The CORS headers of a route that cross-origin callers may use. */
export const allow = (policy: CorsPolicy) => {
  const fixed = {
    "access-control-allow-headers": policy.allowHeaders.join(", "),
    ...(policy.exposeHeaders.length === 0
      ? {}
      : { "access-control-expose-headers": policy.exposeHeaders.join(", ") })
  }
  return (req: IncomingMessage, res: ServerResponse) => {
    if (policy.origin === "any") res.setHeader("access-control-allow-origin", "*")
    else {
      const origin = req.headers.origin
      if (origin !== undefined) {
        res.setHeader("access-control-allow-origin", origin)
        res.setHeader("access-control-allow-credentials", "true")
      }
      res.setHeader("vary", "Origin")
    }
    for (const [name, value] of Object.entries(fixed)) res.setHeader(name, value)
  }
}

/** The methods a preflight to a path no route has is told it may use: every method a route may have. */
export const anyRouteMethods = "GET, POST, PUT, PATCH, DELETE"

/** A preflight's answer headers: the route's CORS headers and the methods it takes. */
export const preflight = (policy: CorsPolicy) => {
  const headers = allow(policy)
  return (req: IncomingMessage, res: ServerResponse, methods: string) => {
    headers(req, res)
    res.setHeader("access-control-allow-methods", methods)
    res.setHeader("access-control-max-age", String(policy.maxAgeSeconds))
  }
}
