import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { type SealedSecret, Secrets } from "../ports/Secrets.js"

/** The provider's tokens, for the application once (`provider_token`, `provider_refresh_token`). */
export interface ProviderTokens {
  readonly accessToken: Redacted.Redacted<string>
  readonly refreshToken: Option.Option<Redacted.Redacted<string>>
}

const Sealed = Schema.parseJson(
  Schema.Struct({ access: Schema.String, refresh: Schema.optional(Schema.String) })
)

/**
 * In the PKCE flow the provider's tokens wait for the application's code exchange with the flow
 * state. They are kept sealed under the authorization code, which the database holds only as a
 * digest: only whoever presents the code can open them, as the exchange does.
 */
export const seal = (code: string, tokens: ProviderTokens): Effect.Effect<SealedSecret, never, Secrets> =>
  Effect.flatMap(Secrets, (secrets) =>
    secrets.seal(
      Redacted.make(code),
      Redacted.make(
        Schema.encodeSync(Sealed)({
          access: Redacted.value(tokens.accessToken),
          ...Option.match(tokens.refreshToken, {
            onNone: () => ({}),
            onSome: (refresh) => ({ refresh: Redacted.value(refresh) })
          })
        })
      )
    )
  )

/** The tokens sealed under `code`; none when the code does not open them. */
export const open = (
  code: string,
  sealed: SealedSecret
): Effect.Effect<Option.Option<ProviderTokens>, never, Secrets> =>
  Effect.flatMap(Secrets, (secrets) => secrets.unseal(Redacted.make(code), sealed)).pipe(
    Effect.map(
      Option.flatMap((opened) =>
        Option.map(Either.getRight(Schema.decodeEither(Sealed)(Redacted.value(opened))), (tokens) => ({
          accessToken: Redacted.make(tokens.access),
          refreshToken: Option.map(Option.fromNullable(tokens.refresh), Redacted.make)
        }))
      )
    )
  )
