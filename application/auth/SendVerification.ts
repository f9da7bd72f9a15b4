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
import { AuthSettings, type VerificationPaths } from "./AuthSettings.js"
import * as PkceFlow from "./PkceFlow.js"
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
  /**
   * The request's PKCE challenge (`PkceFlow`), when it sent one: the link then ends in a flow
   * state's code instead of a session in the redirect's fragment.
   */
  readonly pkce?: { readonly challenge: PkceFlow.Challenge; readonly authenticationMethod: string }
  readonly now: Date
}

/** A token issued: its link token and code in the clear, for the one mail (or answer) that carries them. */
export interface Issued {
  readonly link: Redacted.Redacted<string>
  readonly code: Redacted.Redacted<string>
  /** `API_EXTERNAL_URL` + the path, with `token`, `type` and `redirect_to`. */
  readonly actionLink: string
}

/** The `MAILER_URLPATHS_*` of a mail's link: a magic link goes where recovery goes, as in Supabase Auth. */
const pathOf = (paths: VerificationPaths, kind: Mail.Kind): string => {
  switch (kind) {
    case "invite":
      return paths.invite
    case "recovery":
    case "magic_link":
      return paths.recovery
    case "email_change":
      return paths.emailChange
    default:
      return paths.confirmation
  }
}

/**
 * A one-time token for `user`, stored as digests (replacing their last one of the purpose), with
 * the PKCE flow its link ends in when the request sent a challenge. Joins the caller's
 * transaction. Fails with `IssuedTooSoon`, writing nothing, when the last token of
 * the purpose is more recent than `spacing`.
 */
export const issue = (verification: Verification) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const mint = yield* TokenMint
    const hasher = yield* SecretHasher
    const { user, now } = verification
    const link = yield* mint.token("verification")
    const code = yield* mint.code(settings.verification.codeLength)
    const pkce = verification.pkce
    const flowStateId =
      pkce === undefined
        ? Option.none()
        : yield* PkceFlow.start(user, pkce.challenge, pkce.authenticationMethod, now)
    const store = yield* OneTimeTokenStore
    yield* store.issue(
      new OneTimeToken({
        id: OneTimeTokenId.make(yield* mint.uuid),
        userId: user.id,
        purpose: verification.purpose,
        sentTo: verification.to,
        linkHash: yield* hasher.hash(link),
        codeHash: yield* hasher.hash(Redacted.make(codeSubject(user.id, Redacted.value(code)))),
        failedAttempts: 0,
        createdAt: now,
        expiresAt: Time.plus(now, Duration.toMillis(settings.verification.lifetime)),
        usedAt: Option.none(),
        flowStateId
      }),
      Option.map(verification.spacing, (spacing) => Time.minus(now, Duration.toMillis(spacing)))
    )
    const url = new URL(`${settings.externalUrl}${pathOf(settings.verification.paths, verification.kind)}`)
    url.searchParams.set("token", Redacted.value(link))
    url.searchParams.set("type", verification.type)
    url.searchParams.set("redirect_to", verification.redirectTo)
    return { link, code, actionLink: url.toString() } satisfies Issued
  })

/**
 * `issue`, and the token's mail queued: the link and the code to type, with the spec's template
 * variables and Supabase Auth's (`Token`, `TokenHash`, `RedirectTo`, `Data`). Both writes join
 * the caller's transaction; nothing is written when the token comes too soon.
 */
export const mail = (verification: Verification) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const issued = yield* issue(verification)
    const message = new Mail.Message({
      kind: verification.kind,
      to: verification.to,
      variables: {
        SiteURL: settings.siteUrl,
        Email: Option.getOrElse(verification.user.email, () => verification.to),
        // An email change's mails go to both addresses and name the new one.
        ...Option.match(verification.user.emailChange, {
          onNone: () => ({}),
          onSome: (address) => ({ NewEmail: address })
        }),
        SendingTo: verification.to,
        ConfirmationURL: issued.actionLink,
        Token: Redacted.value(issued.code),
        TokenHash: Redacted.value(issued.link),
        RedirectTo: verification.redirectTo,
        Data: verification.user.userMetadata
      }
    })
    yield* Effect.flatMap(MailOutbox, (outbox) => outbox.enqueue(message, verification.now))
  })

/** The answer to a mail asked for within `SMTP_MAX_FREQUENCY` of the last of its kind. */
export const sentTooRecently = (error: IssuedTooSoon, spacing: Duration.Duration, now: Date) =>
  AuthError.emailSentTooRecently(
    (error.lastIssuedAt.getTime() + Duration.toMillis(spacing) - now.getTime()) / 1000
  )
