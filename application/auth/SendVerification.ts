import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { FlowState, FlowStateId } from "../../domain/auth/FlowState.js"
import * as Mail from "../../domain/auth/Mail.js"
import { codeSubject, OneTimeToken, OneTimeTokenId, type Purpose } from "../../domain/auth/OneTimeToken.js"
import type { Identity } from "../../domain/Identity.js"
import * as Time from "../../domain/Time.js"
import type { User } from "../../domain/User.js"
import { SecretHasher } from "../ports/SecretHasher.js"
import { TokenMint } from "../ports/TokenMint.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings, type VerificationLinks } from "./AuthSettings.js"
import * as PkceFlow from "./PkceFlow.js"
import { Enrolments } from "./ports/Enrolments.js"
import { FlowStateStore } from "./ports/FlowStateStore.js"
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

/** A one-time token's two forms in the clear, and what it is for, to be stored as digests. */
export interface Unstored {
  readonly user: User
  readonly purpose: Purpose
  readonly to: string
  readonly link: Redacted.Redacted<string>
  readonly code: Redacted.Redacted<string>
  readonly lifetime: Duration.Duration
  readonly flowStateId: Option.Option<FlowStateId>
  readonly spacing: Option.Option<Duration.Duration>
  readonly now: Date
}

/** A token of `token`'s purpose, as digests, for the user's mail (or an answer) to carry. */
export const tokenOf = (token: Unstored) =>
  Effect.gen(function* () {
    const mint = yield* TokenMint
    const hasher = yield* SecretHasher
    const { user, now } = token
    return new OneTimeToken(
      {
        id: OneTimeTokenId.make(yield* mint.uuid),
        userId: user.id,
        purpose: token.purpose,
        sentTo: token.to,
        linkHash: yield* hasher.hash(token.link),
        codeHash: yield* hasher.hash(Redacted.make(codeSubject(user.id, Redacted.value(token.code)))),
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

/** The latest creation time of the user's last token of the purpose that a new one may replace. */
const notAfterOf = (spacing: Option.Option<Duration.Duration>, now: Date) =>
  Option.map(spacing, (least) => Time.minus(now, Duration.toMillis(least)))

/**
 * Stores a token as digests, replacing the user's last one of the purpose; `IssuedTooSoon`,
 * writing nothing, when that one is more recent than `spacing`. Joins the caller's transaction.
 */
export const store = (token: Unstored) =>
  Effect.gen(function* () {
    const tokens = yield* OneTimeTokenStore
    yield* tokens.issue(yield* tokenOf(token), notAfterOf(token.spacing, token.now))
  })

/** A verification made ready to send: its token, flow and mail, none of them written yet. */
export interface Prepared {
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
 * Writes nothing (`write`, or `Enrolments` for a new user).
 */
export const prepare = (verification: Verification) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const mint = yield* TokenMint
    const { user, now } = verification
    const link = yield* mint.token("verification")
    const code = yield* mint.code(settings.verification.codeLength)
    const pkce = verification.pkce
    const flow =
      pkce === undefined || Option.isNone(pkce.challenge)
        ? Option.none()
        : Option.some(yield* PkceFlow.flowFor(user, pkce.challenge.value, pkce.authenticationMethod, now))
    const token = yield* tokenOf({
      user,
      purpose: verification.purpose,
      to: verification.to,
      link,
      code,
      lifetime: settings.verification.lifetime,
      flowStateId: Option.map(flow, (started) => started.id),
      spacing: verification.spacing,
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
    return { token, flow, issued, message } satisfies Prepared
  })

/** Stores a prepared verification's flow and token (`store`'s rules); joins the caller's transaction. */
const write = (verification: Verification, prepared: Prepared) =>
  Effect.gen(function* () {
    const flow = prepared.flow
    if (Option.isSome(flow)) yield* Effect.flatMap(FlowStateStore, (flows) => flows.create(flow.value))
    yield* Effect.flatMap(OneTimeTokenStore, (tokens) =>
      tokens.issue(prepared.token, notAfterOf(verification.spacing, verification.now))
    )
  })

/**
 * A one-time token for `user`, stored as digests (replacing their last one of the purpose), with
 * the PKCE flow its link ends in when the request sent a challenge. Joins the caller's
 * transaction. Fails with `IssuedTooSoon`, writing nothing, when the last token of
 * the purpose is more recent than `spacing`.
 */
export const issue = (verification: Verification) =>
  Effect.gen(function* () {
    const prepared = yield* prepare(verification)
    yield* write(verification, prepared)
    return prepared.issued
  })

/**
 * `issue`, and the token's mail queued (`prepare` says what it holds). Both writes join the
 * caller's transaction; nothing is written when the token comes too soon.
 */
export const mail = (verification: Verification) =>
  Effect.gen(function* () {
    const prepared = yield* prepare(verification)
    yield* write(verification, prepared)
    yield* Effect.flatMap(MailOutbox, (outbox) => outbox.enqueue(prepared.message, verification.now))
  })

/**
 * A new user written with the token and the mail of `verification`, their confirmation: all of
 * it or, when their address, number or an identity is someone's already, none of it
 * (`Enrolments`). Joins the caller's transaction.
 */
export const enrol = (
  verification: Verification,
  identities: ReadonlyArray<Identity>,
  passwordHash: Option.Option<string>
) =>
  Effect.gen(function* () {
    const prepared = yield* prepare(verification)
    yield* Effect.flatMap(Enrolments, (enrolments) =>
      enrolments.enrol({
        user: verification.user,
        identities,
        passwordHash,
        flow: prepared.flow,
        token: prepared.token,
        mail: prepared.message,
        now: verification.now
      })
    )
  })

/** Seconds until a message of the kind may be sent again, after `error` at `now`. */
export const secondsLeft = (error: IssuedTooSoon, spacing: Duration.Duration, now: Date) =>
  (error.lastIssuedAt.getTime() + Duration.toMillis(spacing) - now.getTime()) / 1000

/** The answer to a mail asked for within `SMTP_MAX_FREQUENCY` of the last of its kind. */
export const sentTooRecently = (error: IssuedTooSoon, spacing: Duration.Duration, now: Date) =>
  new AuthError.SentTooRecently({ channel: "email", secondsLeft: secondsLeft(error, spacing, now) })

/**
 * Presents a code typed by `user` for their live token of one of `purposes`: whether it was
 * right (the token is then used up). A wrong one counts towards the token's end.
 */
export const useCode = (user: User, purposes: ReadonlyArray<Purpose>, code: string, now: Date) =>
  Effect.gen(function* () {
    const hasher = yield* SecretHasher
    const codeHash = yield* hasher.hash(Redacted.make(codeSubject(user.id, code)))
    const outcome = yield* Effect.flatMap(OneTimeTokenStore, (tokens) =>
      tokens.useCode(user.id, purposes, codeHash, now)
    )
    return outcome._tag === "Used"
  })
