import type { IncomingMessage, ServerResponse } from "node:http"

export interface CorsPolicy {
  /** `any`: every origin, no credentials. `reflect`: the caller's origin, credentials allowed. */
  readonly origin: "any" | "reflect"
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

/** A preflight's answer headers: the route's CORS headers and the methods it takes. */
export const preflight = (policy: CorsPolicy) => {
  const headers = allow(policy)
  return (req: IncomingMessage, res: ServerResponse, methods: string) => {
    headers(req, res)
    res.setHeader("access-control-allow-methods", methods)
    res.setHeader("access-control-max-age", String(policy.maxAgeSeconds))
  }
}
