import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as FlowState from "../../domain/auth/FlowState.js"
import * as Ban from "../../domain/Ban.js"
import { SealedSecret, Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import * as IssueSession from "./IssueSession.js"
import * as ProviderTokenSeal from "./ProviderTokenSeal.js"
import { FlowStateStore } from "./ports/FlowStateStore.js"
import { UserRepository } from "./ports/UserRepository.js"

/** The flow's method becomes the session's `amr`, as Supabase Auth's PKCE grant writes it. */
const methods: ReadonlyArray<IssueSession.Method> = [
  "otp",
  "magiclink",
  "recovery",
  "invite",
  "oauth",
  "email/signup",
  "email_change"
]
const methodOf = (name: string): IssueSession.Method => methods.find((method) => method === name) ?? "otp"

/**
 * `POST /token?grant_type=pkce` (supabase-js `exchangeCodeForSession`): the authorization code a
 * followed link or a provider sign-in handed out, with the verifier of the challenge its request sent, for a session.
 * The code is taken out before the verifier is checked, so it is good for one attempt only —
 * a wrong verifier ends it (Supabase Auth lets the code be tried again). After a provider
 * sign-in the answer carries the provider's tokens too.
 */
export const exchangeCode = Telemetry.fn("ExchangeCode.exchangeCode")(
  (authCode: string, codeVerifier: string, client: IssueSession.Client) =>
    Effect.gen(function* () {
      if (authCode === "" || codeVerifier === "") {
        return yield* new AuthError.PkceParamsInvalid({ problem: "exchange_incomplete" })
      }
      const codeHash = yield* (yield* Secrets).hash(Redacted.make(authCode))
      const taken = yield* Effect.flatMap(FlowStateStore, (flows) => flows.takeByCode(codeHash))
      if (Option.isNone(taken)) return yield* new AuthError.FlowStateNotFound()
      const flow = taken.value
      const now = new Date(yield* Clock.currentTimeMillis)
      const { flowStateLifetime } = yield* AuthSettings
      if (FlowState.isExpired(flow, now, flowStateLifetime)) return yield* new AuthError.FlowStateExpired()
      if (!(yield* FlowState.answers(flow, codeVerifier))) return yield* new AuthError.BadCodeVerifier()
      const user = yield* Effect.flatMap(UserRepository, (users) => users.findById(flow.userId))
      if (Option.isNone(user)) return yield* new AuthError.FlowStateNotFound()
      if (Ban.isBanned(user.value.bannedUntil, now)) return yield* new AuthError.UserIsBanned()
      const grant = yield* IssueSession.issue(user.value, methodOf(flow.authenticationMethod), client)
      // A provider sign-in's tokens, for this answer only: sealed under the code just redeemed.
      const providerTokens = yield* Option.match(flow.providerTokens, {
        onNone: () => Effect.succeed(Option.none<ProviderTokenSeal.ProviderTokens>()),
        onSome: (sealed) => ProviderTokenSeal.open(authCode, SealedSecret.make(sealed))
      })
      return { grant, providerTokens }
    })
)
