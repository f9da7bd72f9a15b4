import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { FlowState } from "../../domain/auth/FlowState.js"
import * as Mail from "../../domain/auth/Mail.js"
import type { OneTimeToken, Purpose } from "../../domain/auth/OneTimeToken.js"
import type { Identity } from "../../domain/Identity.js"
import type { User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings, type VerificationLinks } from "./AuthSettings.js"
import * as OneTimeTokens from "./OneTimeTokens.js"
import * as PkceFlow from "./PkceFlow.js"
import { Enrolments } from "./ports/Enrolments.js"
import { FlowStateStore } from "./ports/FlowStateStore.js"
import { MailOutbox } from "./ports/MailOutbox.js"
import { type IssuedTooSoon, OneTimeTokenStore } from "./ports/OneTimeTokenStore.js"
import type { EmailExists, IdentityExists, PhoneExists } from "./ports/UserRepository.js"

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
   * The request's PKCE challenge (`PkceFlow.parse`), when it sent one: the link then ends in a
   * flow state's code instead of a session in the redirect's fragment.
   */
  readonly pkce?: {
    readonly challenge: Option.Option<PkceFlow.Challenge>
    readonly authenticationMethod: string
  }
  readonly now: Date
}

/** A token issued: its link token and code in the clear, for the one mail (or answer) that carries them. */
export interface Issued {
  readonly link: Redacted.Redacted<string>
  readonly code: Redacted.Redacted<string>
  /** The kind's link (`VerificationLinks`), with `token`, `type` and `redirect_to`. */
  readonly actionLink: string
}

/** Where a mail's link goes: a magic link goes where recovery goes, as in Supabase Auth. */
const linkOf = (links: VerificationLinks, kind: Mail.Kind): string => {
  switch (kind) {
    case "invite":
      return links.invite
    case "recovery":
    case "magic_link":
      return links.recovery
    case "email_change":
      return links.emailChange
    default:
      return links.confirmation
  }
}

/** A verification made ready to send: its token, flow and mail, none of them written yet. */
export interface Prepared {
  readonly verification: Verification
  readonly token: OneTimeToken
  /** The PKCE flow the link ends in, when the request sent a challenge; the token names it. */
  readonly flow: Option.Option<FlowState>
  readonly issued: Issued
  /** The link and the code to type, with the spec's template variables and Supabase Auth's. */
  readonly message: Mail.Message
}

/**
 * A one-time token for `user`, as digests, with the PKCE flow its link ends in when the request
 * sent a challenge, and the mail that carries it: the link and the code to type, with the
 * spec's template variables and Supabase Auth's (`Token`, `TokenHash`, `RedirectTo`, `Data`).
 * Writes nothing (`write` does).
 */
export const prepare = (verification: Verification) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const secrets = yield* Secrets
    const { user, now } = verification
    const link = yield* secrets.token("verification")
    const code = yield* secrets.code(settings.verification.codeLength)
    const pkce = verification.pkce
    const flow =
      pkce === undefined || Option.isNone(pkce.challenge)
        ? Option.none()
        : Option.some(yield* PkceFlow.flowFor(user, pkce.challenge.value, pkce.authenticationMethod, now))
    const token = yield* OneTimeTokens.digestsOf({
      user,
      purpose: verification.purpose,
      to: verification.to,
      link,
      code,
      lifetime: settings.verification.lifetime,
      flowStateId: Option.map(flow, (started) => started.id),
      now
    })
    const url = new URL(linkOf(settings.verification.links, verification.kind))
    // The link's own parameters replace any query the configured URL has, as in Supabase Auth.
    url.search = ""
    url.searchParams.set("token", Redacted.value(link))
    url.searchParams.set("type", verification.type)
    url.searchParams.set("redirect_to", verification.redirectTo)
    const issued: Issued = { link, code, actionLink: url.toString() }
    const message = new Mail.Message(
      {
        kind: verification.kind,
        to: verification.to,
        variables: {
          SiteURL: settings.siteUrl,
          // An email change's mails name the address the user has (none for one who had none,
          // as Supabase Auth's `.Email`) and the new one; the other mails, where they go.
          Email: Option.getOrElse(user.email, () =>
            verification.kind === "email_change" ? "" : verification.to
          ),
          ...Option.match(user.emailChange, {
            onNone: () => ({}),
            onSome: (address) => ({ NewEmail: address })
          }),
          SendingTo: verification.to,
          ConfirmationURL: issued.actionLink,
          Token: Redacted.value(code),
          TokenHash: Redacted.value(link),
          RedirectTo: verification.redirectTo,
          Data: user.userMetadata
        }
      },
      true
    )
    return { verification, token, flow, issued, message } satisfies Prepared
  })

/** A new user to write with their first verification (`Enrolments`): all of it, or none. */
export interface Enrolling {
  readonly identities: ReadonlyArray<Identity>
  readonly passwordHash: Option.Option<string>
}

/**
 * How a prepared verification goes out: `mail` queues its mail; `link` sends nothing, the
 * caller hands the link and code out itself (the admin API's generate_link); an `Enrolling`
 * writes the new user with it.
 */
export type Delivery = "mail" | "link" | Enrolling

/**
 * Writes a prepared verification, joining the caller's transaction: its token as digests
 * (replacing the user's last one of the purpose), the PKCE flow its link ends in, and its mail
 * unless the delivery is `link`. `IssuedTooSoon`, writing nothing, when the user's last token of
 * the purpose is more recent than the verification's spacing. Enrolling, the new user is written
 * with all of it or, when their address, number or an identity is someone's already, none of it.
 */
export function write(
  prepared: Prepared,
  delivery: "mail" | "link"
): Effect.Effect<Issued, IssuedTooSoon, FlowStateStore | OneTimeTokenStore | MailOutbox>
export function write(
  prepared: Prepared,
  delivery: Enrolling
): Effect.Effect<Issued, EmailExists | PhoneExists | IdentityExists, Enrolments>
export function write(
  prepared: Prepared,
  delivery: Delivery
): Effect.Effect<
  Issued,
  IssuedTooSoon | EmailExists | PhoneExists | IdentityExists,
  FlowStateStore | OneTimeTokenStore | MailOutbox | Enrolments
> {
  const { flow, issued, message, token, verification } = prepared
  if (typeof delivery !== "string") {
    return Effect.as(
      Effect.flatMap(Enrolments, (enrolments) =>
        enrolments.enrol({
          user: verification.user,
          identities: delivery.identities,
          passwordHash: delivery.passwordHash,
          flow,
          token,
          mail: message,
          now: verification.now
        })
      ),
      issued
    )
  }
  return Effect.gen(function* () {
    if (Option.isSome(flow)) yield* Effect.flatMap(FlowStateStore, (flows) => flows.create(flow.value))
    yield* Effect.flatMap(OneTimeTokenStore, (tokens) =>
      tokens.issue(token, OneTimeTokens.notAfterOf(verification.spacing, verification.now))
    )
    if (delivery === "mail") {
      yield* Effect.flatMap(MailOutbox, (outbox) => outbox.enqueue(message, verification.now))
    }
    return issued
  })
}

/** Seconds until a message of the kind may be sent again, after `error` at `now`. */
export const secondsLeft = (error: IssuedTooSoon, spacing: Duration.Duration, now: Date) =>
  (error.lastIssuedAt.getTime() + Duration.toMillis(spacing) - now.getTime()) / 1000

/** The answer to a mail asked for within `SMTP_MAX_FREQUENCY` of the last of its kind. */
export const sentTooRecently = (error: IssuedTooSoon, spacing: Duration.Duration, now: Date) =>
  new AuthError.SentTooRecently({ channel: "email", secondsLeft: secondsLeft(error, spacing, now) })
