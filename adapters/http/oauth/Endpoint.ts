import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { OAuthError } from "../../../application/oauth/OAuthError.js"
import { constantTimeEqual } from "../../../domain/ConstantTime.js"
import { type HttpRequest, type HttpResponse, header } from "../HttpMessage.js"
import * as Pipeline from "../Pipeline.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as Form from "./Form.js"
import { json } from "./Json.js"
import { OAuthHttpConfig } from "./OAuthHttpConfig.js"
import type { Services } from "./Routes.js"

/**
 * A refusal answered in a shape of its own rather than as an OAuth error body: introspection
 * switched off (404), or a resource server without the shared secret (401 naming `Bearer`).
 */
export class Refused extends Data.TaggedError("Refused")<{ readonly response: HttpResponse }> {}

const disabled = json({ error: "not_found", error_description: "introspection is disabled" }, 404)

/**
 * RFC 6750 §3.1: a request that presented no credentials is told the scheme only; one that
 * presented a wrong one is also told `invalid_token`.
 */
const refused = (presented: boolean) =>
  json(
    { error: "invalid_client", error_description: "present the introspection secret as a Bearer token" },
    401,
    {
      "www-authenticate": presented
        ? 'Bearer realm="latchkey", error="invalid_token"'
        : 'Bearer realm="latchkey"'
    }
  )

/** The Bearer credential the request presented (RFC 6750 §2.1); none for another scheme. */
const bearerOf = (request: HttpRequest): string | undefined => {
  const [scheme, presented] = (header(request, "authorization") ?? "").split(" ")
  return scheme?.toLowerCase() === "bearer" && presented !== undefined && presented !== ""
    ? presented
    : undefined
}

const allowed = Effect.succeed(undefined)

/**
 * A resource server holding the shared secret (POST /introspect), checked before its form is
 * read; with no secret configured, introspection is off.
 */
const resourceServer = (request: HttpRequest) =>
  Effect.flatMap(OAuthHttpConfig, (config) => {
    if (Option.isNone(config.introspectionToken)) return new Refused({ response: disabled })
    // The resource server presents INTROSPECTION_TOKEN as a Bearer token.
    const presented = bearerOf(request)
    if (
      presented === undefined ||
      !constantTimeEqual(presented, Redacted.value(config.introspectionToken.value))
    )
      return new Refused({ response: refused(presented !== undefined) })
    return allowed
  })

/**
 * Who may call an oauth endpoint: anyone (a client authenticates in its input, since
 * `client_secret_post` puts the credentials in the form), or a resource server presenting
 * `INTROSPECTION_TOKEN` as a Bearer token.
 */
export interface Callers {
  readonly anyone: undefined
  readonly resourceServer: undefined
}

/**
 * The oauth service's checks, run by the one pipeline (Pipeline.ts) as the auth service's are;
 * it has no captcha, and its one rate limit (registrations) is the use case's own.
 */
export const endpoint = Pipeline.make<Callers, never, OAuthError | Refused, Services>({
  callers: { anyone: { known: undefined }, resourceServer },
  answer: () => (effect) =>
    ErrorResponse.answering(Effect.catchTag(effect, "Refused", (refused) => Effect.succeed(refused.response)))
})

/** A token-endpoint style form: every parameter at most once (RFC 6749 §3.2). */
export const form = (request: HttpRequest) => Form.unrepeated(request.body)

/** The token endpoint's form (`Form.tokenRequest`). */
export const tokenForm = (request: HttpRequest) => Form.tokenRequest(request.body)

export { none } from "../Pipeline.js"
