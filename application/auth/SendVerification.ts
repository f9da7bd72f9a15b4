import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Mail from "../../domain/auth/Mail.js"
import { codeSubject, OneTimeToken, OneTimeTokenId, type Purpose } from "../../domain/auth/OneTimeToken.js"
import * as Time from "../../domain/Time.js"
import type { User } from "../../domain/User.js"
import { SecretHasher } from "../ports/SecretHasher.js"
import { TokenMint } from "../ports/TokenMint.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import { MailOutbox } from "./ports/MailOutbox.js"
import { type IssuedTooSoon, OneTimeTokenStore } from "./ports/OneTimeTokenStore.js"

export interface Verification {
  readonly user: User
  readonly purpose: Purpose
  /** The mail that carries it. */
  readonly kind: Mail.Kind
  /** The `type` its link names, as POST and GET /verify read it (`signup`, `recovery`, …). */
  readonly type: string
  readonly to: string
  /** Where the link's flow ends, already checked against the allow list. */
  readonly redirectTo: string
  /** Least time since the last mail of the purpose (`SMTP_MAX_FREQUENCY`); none: no spacing. */
  readonly spacing: Option.Option<Duration.Duration>
  readonly now: Date
}

/**
 * A one-time token for `user`, stored as digests (replacing their last one of the purpose), and
 * its mail queued: a link to `API_EXTERNAL_URL` + the kind's path with the link token, and the
 * code to type, with the spec's template variables and Supabase Auth's (`Token`, `TokenHash`,
 * `RedirectTo`, `Data`). Both writes join the caller's transaction. Fails with `IssuedTooSoon`,
 * writing nothing, when the last mail of the purpose is more recent than `spacing`.
 */
export const mail = (verification: Verification) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const mint = yield* TokenMint
    const hasher = yield* SecretHasher
    const { user, now } = verification
    const link = yield* mint.token("verification")
    const code = yield* mint.code(settings.verification.codeLength)
    yield* Effect.flatMap(OneTimeTokenStore, (store) =>
      Effect.flatMap(
        Effect.all({
          id: mint.uuid,
          linkHash: hasher.hash(link),
          codeHash: hasher.hash(Redacted.make(codeSubject(user.id, Redacted.value(code))))
        }),
        ({ id, linkHash, codeHash }) =>
          store.issue(
            new OneTimeToken({
              id: OneTimeTokenId.make(id),
              userId: user.id,
              purpose: verification.purpose,
              sentTo: verification.to,
              linkHash,
              codeHash,
              failedAttempts: 0,
              createdAt: now,
              expiresAt: Time.plus(now, Duration.toMillis(settings.verification.lifetime)),
              usedAt: Option.none()
            }),
            Option.map(verification.spacing, (spacing) => Time.minus(now, Duration.toMillis(spacing)))
          )
      )
    )
    const url = new URL(`${settings.externalUrl}${settings.verification.confirmationPath}`)
    url.searchParams.set("token", Redacted.value(link))
    url.searchParams.set("type", verification.type)
    url.searchParams.set("redirect_to", verification.redirectTo)
    const message = new Mail.Message({
      kind: verification.kind,
      to: verification.to,
      variables: {
        SiteURL: settings.siteUrl,
        Email: Option.getOrElse(user.email, () => verification.to),
        ConfirmationURL: url.toString(),
        Token: Redacted.value(code),
        TokenHash: Redacted.value(link),
        RedirectTo: verification.redirectTo,
        Data: user.userMetadata
      }
    })
    yield* Effect.flatMap(MailOutbox, (outbox) => outbox.enqueue(message, now))
  })

/** The answer to a mail asked for within `SMTP_MAX_FREQUENCY` of the last of its kind. */
export const sentTooRecently = (error: IssuedTooSoon, spacing: Duration.Duration, now: Date) =>
  AuthError.emailSentTooRecently(
    (error.lastIssuedAt.getTime() + Duration.toMillis(spacing) - now.getTime()) / 1000
  )
