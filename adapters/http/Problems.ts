import type { HttpResponse } from "./HttpMessage.js"

/**
 * How one wire protocol words the answers the server gives on its own, before or around a
 * route: each service supplies its table (the oauth service's RFC 6749 bodies, the auth
 * service's GoTrue bodies), the server decides when.
 */
export interface Problems {
  readonly notFound: HttpResponse
  readonly methodNotAllowed: HttpResponse
  /** The query or body is not text the service can accept (NUL characters, broken JSON, …). */
  readonly badRequest: (description: string) => HttpResponse
  /** The body's media type is not one the route accepts. */
  readonly unsupportedMediaType: (accepted: ReadonlyArray<string>) => HttpResponse
  /** 413: the body exceeds the limit. */
  readonly tooLarge: (limitBytes: number) => HttpResponse
  /** 431: the request line or headers exceed Node's limit. */
  readonly headersTooLarge: HttpResponse
  /** 503: the database (or another dependency) is briefly out of reach. */
  readonly unavailable: (requestId: string, retryAfterSeconds: number) => HttpResponse
  /** 500: a defect; the body names the request id and nothing else. */
  readonly internal: (requestId: string) => HttpResponse
}
