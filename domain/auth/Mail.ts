import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { User } from "../User.js"

/**
 * The mails of the auth service, one per template of the spec (`MAILER_SUBJECTS_<KIND>`,
 * `MAILER_TEMPLATES_<KIND>`), named as the variables name them, lower-cased.
 */
export const Kind = Schema.Literal(
  "invite",
  "confirmation",
  "recovery",
  "magic_link",
  "email_change",
  "reauthentication",
  "password_changed_notification",
  "email_changed_notification",
  "phone_changed_notification",
  "identity_linked_notification",
  "identity_unlinked_notification",
  "mfa_factor_enrolled_notification",
  "mfa_factor_unenrolled_notification",
  // Ours: a recovery code was spent (docs/decisions/0015, "Recovery codes").
  "mfa_recovery_code_used_notification"
)
export type Kind = typeof Kind.Type

/** The kinds that tell of a change after the fact, each sent only when its switch is on. */
export type Notification = Extract<Kind, `${string}_notification`>

export const isNotification = (kind: Kind): kind is Notification => kind.endsWith("_notification")

export const notifications: ReadonlyArray<Notification> = Kind.literals.filter(isNotification)

export const MessageId = Schema.UUID.pipe(Schema.brand("MailMessageId"))
export type MessageId = typeof MessageId.Type

/**
 * A mail to send: its kind, its recipient and the values its template is rendered with
 * (`SiteURL`, `ConfirmationURL`, `Token`, `Data`, …; the spec's variables per kind). It is
 * rendered when it is delivered (MailComposer), so that fetching a template never holds a request.
 */
export class Message extends Schema.Class<Message>("MailMessage")({
  kind: Kind,
  to: Schema.String,
  variables: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}) {}

/**
 * The mail that carries a verification to `to`: the link (`ConfirmationURL`) and the code to
 * type, with the spec's template variables and Supabase Auth's (`Token`, `TokenHash`,
 * `RedirectTo`, `Data`).
 */
export const verificationMessage = (verification: {
  readonly kind: Kind
  readonly to: string
  readonly user: User
  readonly siteUrl: string
  readonly confirmationUrl: string
  /** The code to type, in the clear. */
  readonly token: string
  /** The link's token, in the clear. */
  readonly tokenHash: string
  readonly redirectTo: string
}): Message => {
  const { user } = verification
  return new Message(
    {
      kind: verification.kind,
      to: verification.to,
      variables: {
        SiteURL: verification.siteUrl,
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
        ConfirmationURL: verification.confirmationUrl,
        Token: verification.token,
        TokenHash: verification.tokenHash,
        RedirectTo: verification.redirectTo,
        Data: user.userMetadata
      }
    },
    true
  )
}

/**
 * A mail as it leaves: rendered, with both an HTML and a plain-text part (mail without a text
 * part is a common reason for landing in spam).
 */
export interface Rendered {
  readonly to: string
  readonly subject: string
  readonly html: string
  readonly text: string
}
