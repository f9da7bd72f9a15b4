import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { decodeJwt } from "jose"
import type { Credentials } from "../../../application/oauth/ClientAuthentication.js"
import { invalidClient, invalidRequest } from "../../../application/oauth/OAuthError.js"
import * as ClientAssertion from "../../../domain/oauth/ClientAssertion.js"
import { get, type Params } from "./Form.js"

/** RFC 6749 §2.3.1: both halves of Basic credentials are form-urlencoded before base64. */
const formDecode = (value: string): string | undefined => {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "))
  } catch {
    return undefined
  }
}

const basic = (header: string | undefined) => {
  if (header === undefined) return Option.none()
  const [scheme, encoded] = header.split(" ")
  if (scheme?.toLowerCase() !== "basic" || encoded === undefined) return Option.none()
  const decoded = Buffer.from(encoded, "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  if (colon < 0) return Option.some(undefined)
  const id = formDecode(decoded.slice(0, colon))
  const secret = formDecode(decoded.slice(colon + 1))
  return Option.some(id === undefined || secret === undefined ? undefined : { id, secret })
}

/**
 * The client an assertion claims to come from, read before its signature is checked (to know
 * whose keys check it): its `sub`, which must equal its `iss` and the `client_id` anyway.
 */
const claimedClient = (assertion: string): Option.Option<string> => {
  try {
    const { sub } = decodeJwt(assertion)
    return typeof sub === "string" ? Option.some(sub) : Option.none()
  } catch {
    return Option.none()
  }
}

/**
 * A `client_assertion` (RFC 7521 §4.2): its type must be the JWT one, and `client_id`, which
 * may be left out, must name the client the assertion names.
 */
const fromAssertion = (params: Params, assertion: string, bodyId: Option.Option<string>) =>
  Effect.gen(function* () {
    const type = get(params, "client_assertion_type")
    if (Option.isNone(type))
      return yield* invalidRequest("client_assertion_type is required with client_assertion")
    if (type.value !== ClientAssertion.assertionType) {
      return yield* invalidClient(`client_assertion_type must be ${ClientAssertion.assertionType}`)
    }
    const claimed = claimedClient(assertion)
    if (Option.isNone(claimed))
      return yield* invalidClient("client_assertion is not a JWT naming its client in sub")
    if (Option.isSome(bodyId) && bodyId.value !== claimed.value) {
      return yield* invalidClient("client_id differs from the client the assertion names")
    }
    return {
      clientId: claimed,
      secret: Option.none(),
      assertion: Option.some(Redacted.make(assertion))
    } satisfies Credentials
  })

/**
 * The calling client's credentials from `client_secret_basic`, `client_secret_post` or
 * `private_key_jwt`, or a bare `client_id` (public clients). Using two methods at once is
 * refused (RFC 6749 §2.3).
 */
export const fromRequest = (authorization: string | undefined, params: Params) =>
  Effect.gen(function* () {
    const header = basic(authorization)
    const bodyId = get(params, "client_id")
    const bodySecret = get(params, "client_secret")
    const assertion = get(params, "client_assertion")
    if (Option.isSome(assertion)) {
      if (Option.isSome(header) || Option.isSome(bodySecret)) {
        return yield* invalidRequest("client credentials sent in two ways")
      }
      return yield* fromAssertion(params, assertion.value, bodyId)
    }
    if (Option.isSome(header)) {
      const parsed = header.value
      if (parsed === undefined) return yield* invalidClient("malformed Basic credentials")
      if (Option.isSome(bodySecret)) return yield* invalidRequest("client credentials sent in two ways")
      if (Option.isSome(bodyId) && bodyId.value !== parsed.id) {
        return yield* invalidRequest("client_id differs from the authenticated client")
      }
      return {
        clientId: Option.some(parsed.id),
        secret: Option.some(Redacted.make(parsed.secret)),
        assertion: Option.none()
      } satisfies Credentials
    }
    return {
      clientId: bodyId,
      secret: Option.map(bodySecret, Redacted.make),
      assertion: Option.none()
    } satisfies Credentials
  })
