import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { Credentials } from "../../../application/oauth/ClientAuthentication.js"
import { invalidClient, invalidRequest } from "../../../application/oauth/OAuthError.js"
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
 * The calling client's credentials from `client_secret_basic` or `client_secret_post`, or a
 * bare `client_id` (public clients). Using two methods at once is refused (RFC 6749 §2.3).
 */
export const fromRequest = (authorization: string | undefined, params: Params) =>
  Effect.gen(function* () {
    const header = basic(authorization)
    const bodyId = get(params, "client_id")
    const bodySecret = get(params, "client_secret")
    if (Option.isSome(header)) {
      const parsed = header.value
      if (parsed === undefined) return yield* invalidClient("malformed Basic credentials")
      if (Option.isSome(bodySecret)) return yield* invalidRequest("client credentials sent in two ways")
      if (Option.isSome(bodyId) && bodyId.value !== parsed.id) {
        return yield* invalidRequest("client_id differs from the authenticated client")
      }
      return {
        clientId: Option.some(parsed.id),
        secret: Option.some(Redacted.make(parsed.secret))
      } satisfies Credentials
    }
    return { clientId: bodyId, secret: Option.map(bodySecret, Redacted.make) } satisfies Credentials
  })
