import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Authenticate from "../../../../application/auth/Authenticate.js"
import { ensureSigningKey } from "../../../../application/auth/EnsureSigningKey.js"
import type * as IssueSession from "../../../../application/auth/IssueSession.js"
import { MailOutbox } from "../../../../application/auth/ports/MailOutbox.js"
import { recover } from "../../../../application/auth/Recover.js"
import { refreshSession } from "../../../../application/auth/RefreshSession.js"
import { signInWithPassword } from "../../../../application/auth/SignInWithPassword.js"
import { signup } from "../../../../application/auth/Signup.js"
import { verify } from "../../../../application/auth/Verify.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import { failureOf } from "./Failure.js"

/** A request's client facts when a test does not care: no user agent, no address. */
export const client = { userAgent: Option.none(), ip: Option.none() }

export const password = "correct horse battery staple"

/** A fresh address nobody has used in this run. */
export const freshEmail = () => `${crypto.randomUUID()}@example.com`

/** A user signed up by address under autoconfirm: their first session's grant. */
export const signedUp = (email: string = freshEmail(), secret: string = password) =>
  Effect.gen(function* () {
    yield* ensureSigningKey
    const outcome = yield* signup(MemoryServices.emailSignup(email, secret))
    if (outcome._tag !== "SignedIn") return yield* Effect.dieMessage("autoconfirm signs in")
    return outcome.grant
  })

/** The mails queued (and not yet taken) for `to`, taken now: their kinds and template variables. */
export const mailsTo = (to: string) =>
  Effect.gen(function* () {
    const outbox = yield* MailOutbox
    const claimed = yield* outbox.claim(new Date(8.64e15), 1000, Duration.days(1))
    for (const queued of claimed) yield* outbox.delivered(queued.id, new Date(0))
    return claimed
      .filter((queued) => queued.message.to === to)
      .map((queued) => ({ kind: queued.message.kind, variables: queued.message.variables }))
  })

/** The codes and link tokens of the confirmation mails queued for `to` since the last call. */
export const confirmationMails = (to: string) =>
  Effect.map(mailsTo(to), (mails) =>
    mails
      .filter((mail) => mail.kind === "confirmation")
      .map((mail) => ({ code: String(mail.variables.Token), link: String(mail.variables.TokenHash) }))
  )

/** The codes of the confirmation mails queued for `to` since the last call. */
export const confirmationCodes = (to: string) =>
  Effect.map(confirmationMails(to), (mails) => mails.map((mail) => mail.code))

/** A user signed up (their first session) and signed in `more` times (one session each). */
export const withSessions = (more: number, secret: string = password) =>
  Effect.gen(function* () {
    const email = freshEmail()
    const grants: Array<IssueSession.Grant> = [yield* signedUp(email, secret)]
    for (let i = 0; i < more; i++) {
      grants.push((yield* signInWithPassword({ email, phone: "", password: secret, client })).grant)
    }
    return { email, grants }
  })

/** Whether a grant's session still lives: its access token is accepted, its refresh token rotates. */
export const standing = (grant: IssueSession.Grant) =>
  Effect.gen(function* () {
    const access = yield* failureOf(Authenticate.user(Redacted.value(grant.access.token)))
    const refresh = yield* failureOf(refreshSession(Redacted.value(grant.refreshToken)))
    return `${access}/${refresh}`
  })

/** The code of the recovery mail queued for `email`. */
export const recoveryCode = (email: string) =>
  Effect.gen(function* () {
    const outbox = yield* MailOutbox
    const claimed = yield* outbox.claim(new Date(8.64e15), 1000, Duration.days(1))
    const mail = claimed.find((queued) => queued.message.to === email && queued.message.kind === "recovery")
    return String(mail?.message.variables.Token)
  })

/** A recovery asked for and its mailed code verified: the session it begins. */
export const recovered = (email: string) =>
  Effect.gen(function* () {
    yield* recover({ email, redirectTo: "", codeChallenge: "", codeChallengeMethod: "" })
    const token = yield* recoveryCode(email)
    const verified = yield* verify({ type: "recovery", token, tokenHash: "", email, phone: "", client })
    if (verified._tag !== "Session") return yield* Effect.dieMessage("a recovery code signs in")
    return verified.grant
  })

/** A PUT /user body that sets a password and nothing else. */
export const passwordChange = (newPassword: string, currentPassword = "") => ({
  email: "",
  phone: "",
  password: Option.some(newPassword),
  currentPassword,
  nonce: "",
  data: Option.none(),
  appMetadata: Option.none(),
  redirectTo: "",
  codeChallenge: "",
  codeChallengeMethod: "",
  channel: ""
})

/** A PUT /user body that asks for a change of number and nothing else. */
export const phoneChange = (phone: string) => ({ ...passwordChange(""), password: Option.none(), phone })

/** An admin PUT /admin/users/{id} body that changes nothing; spread it and set what a test changes. */
export const adminNoChange = {
  id: "",
  aud: "",
  role: "",
  email: "",
  phone: "",
  password: Option.none<string>(),
  passwordHash: "",
  emailConfirm: false,
  phoneConfirm: false,
  userMetadata: Option.none(),
  appMetadata: Option.none(),
  banDuration: ""
}
