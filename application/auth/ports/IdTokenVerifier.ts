import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * An ID token that does not hold: a bad signature, another issuer, expired, or a provider whose
 * keys could not be read. `message` is safe to show: never the token.
 */
export class IdTokenRefused extends Schema.TaggedError<IdTokenRefused>()("IdTokenRefused", {
  message: Schema.String
}) {}

/** What the token must say. */
export interface Expected {
  /** The provider's issuer; its keys are found through its OpenID discovery document. */
  readonly issuer: string
  readonly now: Date
}

/**
 * Checks an ID token a provider gave an application (native sign-in) against the provider's
 * keys: signature, issuer and expiry. The audience is the caller's to check, as Supabase Auth
 * checks it after the token, in words of its own (IdTokenSignIn).
 */
export class IdTokenVerifier extends Context.Tag("latchkey/auth/IdTokenVerifier")<
  IdTokenVerifier,
  {
    readonly verify: (
      token: string,
      expected: Expected
    ) => Effect.Effect<Readonly<Record<string, unknown>>, IdTokenRefused>
    /**
     * The issuer the token names, read without any check (Apple's and Azure's issuer is told by
     * the token); none when it is not a JWT with a text `iss`. `verify` checks it afterwards.
     */
    readonly issuerOf: (token: string) => Option.Option<string>
  }
>() {}
