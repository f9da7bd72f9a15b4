import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { FlowState, FlowStateId } from "../../domain/auth/FlowState.js"
import * as Mail from "../../domain/auth/Mail.js"
import { codeSubject, OneTimeToken, OneTimeTokenId, type Purpose } from "../../domain/auth/OneTimeToken.js"
import type { Identity } from "../../domain/Identity.js"
import * as Time from "../../domain/Time.js"
import type { Phone, User } from "../../domain/User.js"
import { RateLimiter } from "../ports/RateLimiter.js"
import { Secrets } from "../ports/Secrets.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings, type VerificationLinks } from "./AuthSettings.js"
import type * as ClientInput from "./ClientInput.js"
import { Enrolments } from "./ports/Enrolments.js"
import { FlowStateStore } from "./ports/FlowStateStore.js"
import { MailOutbox } from "./ports/MailOutbox.js"
import { type IssuedTooSoon, OneTimeTokenStore } from "./ports/OneTimeTokenStore.js"
import {
  type EmailExists,
  type IdentityExists,
  type PhoneExists,
  type UserPatch,
  UserRepository
} from "./ports/UserRepository.js"

/**
 * Sending a verification — a link and a code that prove an address or a number is the user's —
 * in the order a use case does it: the answer evenly timed, the service-wide quota's share
 * taken before the transaction opens, the token, its PKCE flow and its mail made ready
 * (`prepare`), then written in the caller's transaction (`write`). Texts (SendSms) store their
 * code through the same one-time tokens (`storeToken`, `useCode`).
 */

/**
 * How long every answer of the endpoints that must not tell whether an address has an account
 * (/recover, /magiclink and /otp with an email, /resend) takes at least. The work for a known
 * address (a token issued, a mail queued: a few writes) takes longer than for an unknown one (a
 * lookup), and the difference would tell the two apart; padding both to the same floor hides it.
 * Well above that work's time on a loaded server, and still well below what Supabase Auth takes
 * for the same answer, since it talks to the mail server before answering.
 */
export const answerFloor = Duration.millis(200)

/**
 * `effect`, answered no sooner than the settings' `answerFloor` after it started, whether it
 * succeeds or fails: a refusal (a mail asked for too soon) is as slow as a success.
 */
export const evenlyTimed = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | AuthSettings> =>
  Effect.flatMap(AuthSettings, (settings) =>
    Effect.all([Effect.exit(effect), Effect.sleep(settings.answerFloor)], { concurrency: 2 }).pipe(
      Effect.flatMap(([exit]) => exit)
    )
  )

// The service-wide caps on messages with a link or code, as Supabase Auth keeps them (there per
// process; here in the database, shared by every instance): `RATE_LIMIT_EMAIL_SENT` mails and
// `RATE_LIMIT_SMS_SENT` texts per hour, all users together. A use case takes its share before
// its transaction opens (the count has a connection of its own and must not wait for one while
// holding another); refused requests count too, and a request that then sends nothing keeps
// its share spent.

/** `count` mails to send; 429 `over_email_send_rate_limit` past the cap. */
export const takeMailQuota = (count: number, now: Date) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const limiter = yield* RateLimiter
    for (let sent = 0; sent < count; sent++) {
      const verdict = yield* limiter.consume("auth:email_sent", settings.limits.emailSent, now)
      if (!verdict.allowed) return yield* new AuthError.OverEmailSendRateLimit()
    }
  })

/**
 * One text to send; 429 `over_sms_send_rate_limit` past the cap. As in Supabase Auth, texts
 * under `SMS_AUTOCONFIRM` and to test numbers (`SMS_TEST_OTP`) are not counted.
 */
export const takeTextQuota = (to: Phone, now: Date) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    if (settings.smsAutoconfirm || Option.isSome(settings.sms.testCode(to, now))) return
    const verdict = yield* Effect.flatMap(RateLimiter, (limiter) =>
      limiter.consume("auth:sms_sent", settings.limits.smsSent, now)
    )
    if (!verdict.allowed) return yield* new AuthError.OverSmsSendRateLimit()
  })

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
   * The request's PKCE challenge (`ClientInput.pkceChallenge`), when it sent one: the link then
   * ends in a flow state's code instead of a session in the redirect's fragment.
   */
  readonly pkce?: {
    readonly challenge: Option.Option<ClientInput.PkceChallenge>
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
  /** The user it is for; after `write`, as written, with its record of the sending (`stampSent`). */
  readonly user: User
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
 * sent a challenge, and the mail that carries it (`Mail.verificationMessage`). Writes nothing
 * (`write` does).
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
        : Option.some(yield* flowFor(user, pkce.challenge.value, pkce.authenticationMethod, now))
    const token = yield* digestsOf({
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
    const issued: Issued = { link, code, actionLink: url.toString(), user }
    const message = Mail.verificationMessage({
      kind: verification.kind,
      to: verification.to,
      user,
      siteUrl: settings.siteUrl,
      confirmationUrl: issued.actionLink,
      token: Redacted.value(code),
      tokenHash: Redacted.value(link),
      redirectTo: verification.redirectTo
    })
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
 * (replacing the user's last one of the purpose) and the user's record of its sending
 * (`stampSent`), the PKCE flow its link ends in, and its mail unless the delivery is `link`.
 * `IssuedTooSoon`, writing nothing, when the user's last token of the purpose is more recent
 * than the verification's spacing. Enrolling, the new user is written with all of it or, when
 * their address, number or an identity is someone's already, none of it.
 */
export function write(
  prepared: Prepared,
  delivery: "mail" | "link"
): Effect.Effect<Issued, IssuedTooSoon, FlowStateStore | OneTimeTokenStore | MailOutbox | UserRepository>
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
  FlowStateStore | OneTimeTokenStore | MailOutbox | UserRepository | Enrolments
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
      tokens.issue(token, notAfterOf(verification.spacing, verification.now))
    )
    const user = yield* stampSent(verification.user, verification.purpose, verification.now)
    if (delivery === "mail") {
      yield* Effect.flatMap(MailOutbox, (outbox) => outbox.enqueue(message, verification.now))
    }
    return { ...issued, user }
  })
}

/** Seconds until a message of the kind may be sent again, after `error` at `now`. */
export const secondsLeft = (error: IssuedTooSoon, spacing: Duration.Duration, now: Date) =>
  (error.lastIssuedAt.getTime() + Duration.toMillis(spacing) - now.getTime()) / 1000

/** The answer to a mail asked for within `SMTP_MAX_FREQUENCY` of the last of its kind. */
export const sentTooRecently = (error: IssuedTooSoon, spacing: Duration.Duration, now: Date) =>
  new AuthError.SentTooRecently({ channel: "email", secondsLeft: secondsLeft(error, spacing, now) })

/**
 * The PKCE flow a request's challenge starts for the user its mail goes to (supabase-js
 * `flowType: "pkce"`): the mail's link then ends in `redirect_to?code=…` instead of a session in
 * the fragment. Writes nothing: the flow is stored with the token that names it.
 */
const flowFor = (user: User, challenge: ClientInput.PkceChallenge, authenticationMethod: string, now: Date) =>
  Effect.map(
    Effect.flatMap(Secrets, (secrets) => secrets.uuid),
    (id) =>
      new FlowState({
        id: FlowStateId.make(id),
        userId: user.id,
        codeChallenge: challenge.codeChallenge,
        codeChallengeMethod: challenge.method,
        authenticationMethod,
        authCodeHash: Option.none(),
        authCodeIssuedAt: Option.none(),
        providerTokens: Option.none(),
        createdAt: now
      })
  )

// One-time tokens, as the mails (above) and the texts (SendSms) carry them: a link token and a
// code, kept only as digests, one live token per user and purpose.

/** A one-time token's two forms in the clear, and what it is for, to be stored as digests. */
export interface Unstored {
  readonly user: User
  readonly purpose: Purpose
  readonly to: string
  readonly link: Redacted.Redacted<string>
  readonly code: Redacted.Redacted<string>
  readonly lifetime: Duration.Duration
  readonly flowStateId: Option.Option<FlowStateId>
  readonly now: Date
}

/** The token as digests, for the user's mail, text or an answer to carry in the clear. */
const digestsOf = (token: Unstored) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const { user, now } = token
    return new OneTimeToken(
      {
        id: OneTimeTokenId.make(yield* secrets.uuid),
        userId: user.id,
        purpose: token.purpose,
        sentTo: token.to,
        linkHash: yield* secrets.hash(token.link),
        codeHash: yield* secrets.hash(Redacted.make(codeSubject(user.id, Redacted.value(token.code)))),
        failedAttempts: 0,
        createdAt: now,
        expiresAt: Time.plus(now, Duration.toMillis(token.lifetime)),
        usedAt: Option.none(),
        flowStateId: token.flowStateId
      },
      // Made of values already of their types: the class need not check them again.
      true
    )
  })

/**
 * The user's record of when a token of `purpose` went out, as Supabase Auth's user object shows
 * it and its password change clears it: `recovery_sent_at` for a recovery or magic link (both
 * Supabase Auth's recovery token), `reauthentication_sent_at` for a nonce. The other purposes'
 * stamps (`confirmation_sent_at`, `invited_at`, the changes') are what their use cases record
 * about the user besides, and they write them.
 */
const sentStamp = (purpose: Purpose, now: Date): Option.Option<UserPatch> => {
  switch (purpose) {
    case "recovery":
    case "magic_link":
      return Option.some({ recoverySentAt: Option.some(now) })
    case "reauthentication":
      return Option.some({ reauthenticationSentAt: Option.some(now) })
    default:
      return Option.none()
  }
}

/**
 * Writes `sentStamp` in the caller's transaction and answers the user as written (an
 * administrator's generated link shows the stamp); a user deleted meanwhile has nothing to stamp.
 */
const stampSent = (user: User, purpose: Purpose, now: Date): Effect.Effect<User, never, UserRepository> =>
  Option.match(sentStamp(purpose, now), {
    onNone: () => Effect.succeed(user),
    onSome: (patch) =>
      Effect.flatMap(UserRepository, (users) => users.update(user.id, patch, now)).pipe(
        Effect.catchTags({
          UserNotFound: () => Effect.succeed(user),
          EmailExists: Effect.die,
          PhoneExists: Effect.die
        })
      )
  })

/** The latest creation time of the user's last token of the purpose that a new one may replace. */
const notAfterOf = (spacing: Option.Option<Duration.Duration>, now: Date) =>
  Option.map(spacing, (least) => Time.minus(now, Duration.toMillis(least)))

/**
 * Stores a token as digests, replacing the user's last one of the purpose, and the user's record
 * of its sending (`stampSent`); `IssuedTooSoon`, writing nothing, when that one is more recent
 * than `spacing`. Joins the caller's transaction.
 */
export const storeToken = (token: Unstored, spacing: Option.Option<Duration.Duration>) =>
  Effect.gen(function* () {
    const tokens = yield* OneTimeTokenStore
    yield* tokens.issue(yield* digestsOf(token), notAfterOf(spacing, token.now))
    yield* stampSent(token.user, token.purpose, token.now)
  })

/**
 * Presents a code typed by `user` for their live token of one of `purposes`: whether it was
 * right (the token is then used up). A wrong one counts towards the token's end.
 */
export const useCode = (user: User, purposes: ReadonlyArray<Purpose>, code: string, now: Date) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const codeHash = yield* secrets.hash(Redacted.make(codeSubject(user.id, code)))
    const outcome = yield* Effect.flatMap(OneTimeTokenStore, (tokens) =>
      tokens.useCode(user.id, purposes, codeHash, now)
    )
    return outcome._tag === "Used"
  })
