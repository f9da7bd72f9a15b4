import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { FlowStateId } from "../../domain/auth/FlowState.js"
import { codeSubject, type Purpose, purposesOf } from "../../domain/auth/OneTimeToken.js"
import * as Ban from "../../domain/Ban.js"
import type { UserId } from "../../domain/Ids.js"
import type { User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import * as ChangeEmail from "./ChangeEmail.js"
import * as ChangePhone from "./ChangePhone.js"
import * as ClientInput from "./ClientInput.js"
import * as IssueSession from "./IssueSession.js"
import { FlowStateStore } from "./ports/FlowStateStore.js"
import { OneTimeTokenStore } from "./ports/OneTimeTokenStore.js"
import { UserRepository } from "./ports/UserRepository.js"
import * as SendSms from "./SendSms.js"

/** POST or GET /verify, as decoded from the body or the query (`""` when absent). */
export interface VerifyRequest {
  readonly type: string
  /** The code that was mailed (with `email`), or, on GET, the link's token. */
  readonly token: string
  /** The link's token (`token_hash`), as supabase-js `verifyOtp({ token_hash })` sends it. */
  readonly tokenHash: string
  readonly email: string
  readonly phone: string
  readonly client: IssueSession.Client
}

/** The token's forms the request may carry, checked in Supabase Auth's order and words. */
const checked = (request: VerifyRequest) =>
  Effect.gen(function* () {
    if (request.type === "") return yield* new AuthError.VerifyRequestInvalid({ problem: "type_missing" })
    const purposes = purposesOf(request.type)
    if (purposes === undefined)
      return yield* new AuthError.VerifyRequestInvalid({ problem: "type_unsupported" })
    if (request.token === "" && request.tokenHash === "") {
      return yield* new AuthError.VerifyRequestInvalid({ problem: "token_missing" })
    }
    if (request.token !== "" && request.tokenHash !== "") {
      return yield* new AuthError.VerifyRequestInvalid({ problem: "token_and_hash" })
    }
    if (request.tokenHash !== "" && (request.email !== "" || request.phone !== "")) {
      return yield* new AuthError.VerifyRequestInvalid({ problem: "hash_with_contact" })
    }
    const texted = request.type === "sms" || request.type === "phone_change"
    if (
      (request.email !== "" && request.phone !== "") ||
      (request.tokenHash === "" && texted !== (request.phone !== ""))
    ) {
      return yield* new AuthError.EmailAndPhoneGiven({ at: "verify" })
    }
    return purposes
  })

/**
 * A mailed or texted one-time token used up — by its link token, or by its code with the address
 * or number it was sent to — and what it proves carried out (an address or number confirmed, a
 * change made). A code that is wrong, used,
 * expired or unknown, and an address nobody has, all get the same answer, so the endpoint tells
 * nothing about accounts. Returns the user and the PKCE flow the token's link ends in, if any.
 */
const useUp = (request: VerifyRequest) =>
  Effect.gen(function* () {
    const purposes = yield* checked(request)
    const store = yield* OneTimeTokenStore
    const secrets = yield* Secrets
    const users = yield* UserRepository
    const now = new Date(yield* Clock.currentTimeMillis)

    let userId: UserId
    // The user as read to find the code's owner, when a code was used: read again otherwise.
    let known = Option.none<User>()
    let purpose: Purpose
    let flowStateId = Option.none<FlowStateId>()
    if (request.phone !== "") {
      // A texted code: the number it went to (the pending one for a phone change) names the user.
      const phone = yield* ClientInput.phone(request.phone)
      const owner =
        request.type === "phone_change"
          ? yield* users.findByPendingPhone(phone)
          : yield* users.findByPhone(phone)
      if (Option.isNone(owner)) return yield* new AuthError.OtpExpired()
      if (Ban.isBanned(owner.value.bannedUntil, now)) return yield* new AuthError.UserIsBanned()
      if (!(yield* SendSms.check(owner.value, phone, purposes, request.token, now))) {
        return yield* new AuthError.OtpExpired()
      }
      userId = owner.value.id
      known = owner
      purpose = request.type === "phone_change" ? "phone_change" : "confirmation"
    } else if (request.tokenHash !== "" || request.email === "") {
      // A link: the token alone identifies the user.
      const link = request.tokenHash !== "" ? request.tokenHash : request.token
      const used = yield* store.useLink(yield* secrets.hash(Redacted.make(link)), purposes, now)
      if (Option.isNone(used)) return yield* new AuthError.EmailLinkExpired()
      userId = used.value.userId
      purpose = used.value.purpose
      flowStateId = used.value.flowStateId
    } else {
      const email = yield* ClientInput.email(request.email)
      // An email change's code comes with either address: the current one or the new one.
      const current = yield* users.findByEmail(email)
      const owner = Option.isSome(current)
        ? current
        : purposes.some((known) => ChangeEmail.purposes.includes(known))
          ? yield* users.findByPendingEmail(email)
          : Option.none()
      if (Option.isNone(owner)) return yield* new AuthError.OtpExpired()
      const codeHash = yield* secrets.hash(Redacted.make(codeSubject(owner.value.id, request.token)))
      const outcome = yield* store.useCode(owner.value.id, purposes, codeHash, now)
      if (outcome._tag !== "Used") return yield* new AuthError.OtpExpired()
      userId = owner.value.id
      known = owner
      purpose = outcome.token.purpose
    }

    // A link names only its user, who is read now; a code's owner was read a moment ago, and
    // reading them again would cost every code's sign-in a round trip.
    const found = Option.isSome(known) ? known : yield* users.findById(userId)
    if (Option.isNone(found)) return yield* new AuthError.EmailLinkExpired()
    if (Ban.isBanned(found.value.bannedUntil, now)) return yield* new AuthError.UserIsBanned()
    if (ChangeEmail.purposes.includes(purpose)) {
      const confirmed = yield* ChangeEmail.confirm(found.value, now)
      yield* Telemetry.annotate("user.id", userId)
      return confirmed._tag === "Waiting"
        ? ({ _tag: "Waiting", pkce: Option.isSome(flowStateId) } as const)
        : ({ _tag: "Verified", user: confirmed.user, flowStateId, now } as const)
    }
    if (purpose === "phone_change") {
      const changed = yield* ChangePhone.confirm(found.value, now)
      yield* Telemetry.annotate("user.id", userId)
      return { _tag: "Verified", user: changed, flowStateId, now } as const
    }
    // Proving that the message arrived confirms the address or number, whichever message it was.
    const byText = request.phone !== ""
    const confirmed = byText ? found.value.phoneConfirmedAt : found.value.emailConfirmedAt
    // A sign-up's or an invitation's mail marks the address's identities verified too.
    const identities = purpose === "confirmation" || purpose === "invite"
    const user = Option.isSome(confirmed)
      ? found.value
      : yield* (
          byText
            ? users.update(userId, { phoneConfirmedAt: Option.some(now) }, now)
            : users.confirmEmail(userId, { identities }, now)
        ).pipe(
          Effect.catchAll(() =>
            Effect.fail(byText ? new AuthError.OtpExpired() : new AuthError.EmailLinkExpired())
          )
        )
    yield* Telemetry.annotate("user.id", user.id)
    return { _tag: "Verified", user, flowStateId, now } as const
  })

/**
 * The request's checks alone, nothing looked up or used: what a link shown on a confirmation page
 * first (`MAILER_LINK_CONFIRMATION_PAGE`) answers when it could never work, as following it would.
 */
export const check = Telemetry.fn("Verify.check")((request: VerifyRequest) => Effect.asVoid(checked(request)))

/** Supabase Auth's words when one address of a secure email change has confirmed and the other has not. */
export const otherAddressPending =
  "Confirmation link accepted. Please proceed to confirm link sent to the other email"

/**
 * The `amr` method of a verification's session: `recovery` for a recovery link or code, which
 * lets it set a password without the current one (UpdateUser); `otp` for the rest, as Supabase
 * Auth writes every one outside the PKCE flow.
 */
const methodOf = (type: string): IssueSession.Method => (type === "recovery" ? "recovery" : "otp")

/** What POST /verify answers: a session, or the note that the other address must still confirm. */
export type Verified =
  | { readonly _tag: "Session"; readonly grant: IssueSession.Grant }
  | { readonly _tag: "Waiting" }

/** POST /verify (supabase-js `verifyOtp`): the token used up, and a session. */
export const verify = Telemetry.fn("Verify.verify")((request: VerifyRequest) =>
  Effect.gen(function* () {
    const used = yield* useUp(request)
    if (used._tag === "Waiting") return { _tag: "Waiting" } satisfies Verified
    return {
      _tag: "Session",
      grant: yield* IssueSession.issue(used.user, methodOf(request.type), request.client)
    } satisfies Verified
  })
)

/** Where a followed link ends: a session, or, in a PKCE flow, the authorization code to exchange. */
export type Followed =
  | { readonly _tag: "Session"; readonly grant: IssueSession.Grant }
  | { readonly _tag: "Code"; readonly code: string }
  /** One address of a secure email change confirmed; the redirect carries `otherAddressPending`. */
  | { readonly _tag: "Waiting"; readonly pkce: boolean }

/**
 * GET /verify (a mailed link followed): the token used up, then a session for the redirect's
 * fragment — or, when the mail was asked for with a PKCE challenge, an authorization code for
 * `redirect_to?code=…`, which the application exchanges with its verifier (ExchangeCode).
 */
export const followLink = Telemetry.fn("Verify.followLink")((request: VerifyRequest) =>
  Effect.gen(function* () {
    const used = yield* useUp(request)
    if (used._tag === "Waiting") return used satisfies Followed
    const { user, flowStateId, now } = used
    if (Option.isNone(flowStateId)) {
      return {
        _tag: "Session",
        grant: yield* IssueSession.issue(user, methodOf(request.type), request.client)
      } satisfies Followed
    }
    const secrets = yield* Secrets
    const code = yield* secrets.uuid
    const codeHash = yield* secrets.hash(Redacted.make(code))
    const issued = yield* (yield* FlowStateStore).issueCode(flowStateId.value, codeHash, now)
    if (!issued) return yield* new AuthError.FlowStateNotFound()
    return { _tag: "Code", code } satisfies Followed
  })
)
