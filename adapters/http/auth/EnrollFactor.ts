import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { type EnrollRequest, enrollFactor } from "../../../application/auth/EnrollFactor.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as Endpoint from "./Endpoint.js"
import { field } from "./Endpoint.js"
import type * as Refusal from "./Refusal.js"
import * as TotpQrCode from "./TotpQrCode.js"

const Body = Schema.Struct({
  factor_type: field(Schema.String),
  friendly_name: field(Schema.String),
  issuer: field(Schema.String),
  phone: field(Schema.String)
})

/** The body of POST /factors (auth-js `mfa.enroll`), read as Supabase Auth's `EnrollFactorParams`. */
export const input = (request: HttpRequest): Effect.Effect<EnrollRequest, Refusal.BadJson> =>
  Effect.map(Endpoint.body(Body)(request), (body) => ({
    factorType: body.factor_type ?? "",
    friendlyName: body.friendly_name ?? "",
    issuer: body.issuer ?? "",
    phone: body.phone ?? ""
  }))

/**
 * POST /factors — supabase-js `mfa.enroll` (Supabase Auth's `EnrollFactor`): 200 `{id, type,
 * friendly_name}` with, for TOTP, `totp: {qr_code, secret, uri}` and, for a phone, `phone` as
 * the request wrote it.
 */
export const handle = (request: EnrollRequest, signedIn: SignedIn) =>
  Effect.map(enrollFactor(signedIn, request), (enrolled) => {
    const common = {
      id: enrolled.factor.id,
      type: enrolled.factor.factorType,
      friendly_name: enrolled.factor.friendlyName
    }
    switch (enrolled._tag) {
      case "Totp": {
        const uri = Redacted.value(enrolled.uri)
        return HttpMessage.json({
          ...common,
          totp: { qr_code: TotpQrCode.svg(uri), secret: Redacted.value(enrolled.secret), uri }
        })
      }
      case "Phone":
        return HttpMessage.json({ ...common, phone: enrolled.phone })
      case "WebAuthn":
        return HttpMessage.json(common)
    }
  })
