import type { Kind } from "../../../domain/auth/Mail.js"

/**
 * The service's own mail bodies, in the template syntax of `MAILER_TEMPLATES_<KIND>`
 * (GoTemplate.ts) and with the spec's variables for each kind, as HTML and as plain text.
 * Each mail with a link also carries its one-time code, so that a reader on another device can
 * type it instead.
 */
export interface BuiltIn {
  readonly html: string
  readonly text: string
}

const page = (title: string, body: string) =>
  `<!doctype html><html><body style="font-family: sans-serif; line-height: 1.5">
<h2>${title}</h2>
${body}
</body></html>`

const code = `{{ if .Token }}<p>Or enter this code: <strong>{{ .Token }}</strong></p>{{ end }}`
const textCode = `{{ if .Token }}

Or enter this code: {{ .Token }}{{ end }}`

const withLink = (title: string, lead: string, action: string): BuiltIn => ({
  html: page(title, `<p>${lead}</p>\n<p><a href="{{ .ConfirmationURL }}">${action}</a></p>\n${code}`),
  text: `${title}

${lead}

${action}: {{ .ConfirmationURL }}${textCode}
`
})

const notice = (title: string, htmlBody: string, textBody: string): BuiltIn => ({
  html: page(title, `<p>${htmlBody}</p>\n<p>If this was not you, secure your account now.</p>`),
  text: `${title}

${textBody}

If this was not you, secure your account now.
`
})

export const builtIn: Record<Kind, BuiltIn> = {
  invite: withLink(
    "You have been invited",
    "You have been invited to create an account at {{ .SiteURL }} for {{ .Email }}.",
    "Accept the invitation"
  ),
  confirmation: withLink(
    "Confirm your email address",
    "Confirm that {{ .Email }} is your address to finish signing up at {{ .SiteURL }}.",
    "Confirm your address"
  ),
  recovery: withLink(
    "Reset your password",
    "Someone asked to reset the password of {{ .Email }} at {{ .SiteURL }}. If it was not you, ignore this mail.",
    "Reset your password"
  ),
  magic_link: withLink(
    "Your sign-in link",
    "Sign in to {{ .SiteURL }} as {{ .Email }}. The link works once.",
    "Sign in"
  ),
  // `Email` is the address the user has, empty for one who had none (an anonymous or a phone
  // user adding one): that mail confirms an address, it changes none.
  email_change: withLink(
    "Confirm your new email address",
    "{{ if .Email }}Confirm the change of your address from {{ .Email }} to {{ .NewEmail }} at {{ .SiteURL }}.{{ else }}Confirm {{ .NewEmail }} as the email address of your account at {{ .SiteURL }}.{{ end }}",
    "Confirm the address"
  ),
  reauthentication: {
    html: page(
      "Confirm it is you",
      "<p>Enter this code to confirm it is you: <strong>{{ .Token }}</strong></p>"
    ),
    text: `Confirm it is you

Enter this code to confirm it is you: {{ .Token }}
`
  },
  password_changed_notification: notice(
    "Your password was changed",
    "The password of {{ .Email }} was changed.",
    "The password of {{ .Email }} was changed."
  ),
  email_changed_notification: notice(
    "Your email address was changed",
    "The address of your account was changed from {{ .OldEmail }} to {{ .Email }}.",
    "The address of your account was changed from {{ .OldEmail }} to {{ .Email }}."
  ),
  phone_changed_notification: notice(
    "Your phone number was changed",
    "The phone number of {{ .Email }} was changed{{ if .OldPhone }} from {{ .OldPhone }}{{ end }} to {{ .Phone }}.",
    "The phone number of {{ .Email }} was changed{{ if .OldPhone }} from {{ .OldPhone }}{{ end }} to {{ .Phone }}."
  ),
  identity_linked_notification: notice(
    "A new sign-in method was linked to your account",
    "{{ .Provider }} can now be used to sign in as {{ .Email }}.",
    "{{ .Provider }} can now be used to sign in as {{ .Email }}."
  ),
  identity_unlinked_notification: notice(
    "A sign-in method was removed from your account",
    "{{ .Provider }} can no longer be used to sign in as {{ .Email }}.",
    "{{ .Provider }} can no longer be used to sign in as {{ .Email }}."
  ),
  mfa_factor_enrolled_notification: notice(
    "A new verification method was added to your account",
    "A {{ .FactorType }} verification method was added to {{ .Email }}.",
    "A {{ .FactorType }} verification method was added to {{ .Email }}."
  ),
  mfa_factor_unenrolled_notification: notice(
    "A verification method was removed from your account",
    "A {{ .FactorType }} verification method was removed from {{ .Email }}.",
    "A {{ .FactorType }} verification method was removed from {{ .Email }}."
  ),
  // `RemainingCodes` is ours: how many unused codes the set has after this one.
  mfa_recovery_code_used_notification: notice(
    "A recovery code was used to sign in to your account",
    "A recovery code of {{ .Email }} was used to complete a sign-in at {{ .SiteURL }}.{{ if .RemainingCodes }} {{ .RemainingCodes }} unused codes are left.{{ else }} No unused codes are left: create a new set.{{ end }}",
    "A recovery code of {{ .Email }} was used to complete a sign-in at {{ .SiteURL }}.{{ if .RemainingCodes }} {{ .RemainingCodes }} unused codes are left.{{ else }} No unused codes are left: create a new set.{{ end }}"
  )
}

/** The spec's default subjects (`MAILER_SUBJECTS_<KIND>`). */
export const defaultSubjects: Record<Kind, string> = {
  invite: "You've been invited",
  confirmation: "Confirm your email address",
  recovery: "Reset your password",
  magic_link: "Your sign-in link",
  email_change: "Confirm your new email address",
  reauthentication: "{{ .Token }} is your verification code",
  password_changed_notification: "Your password was changed",
  email_changed_notification: "Your email address was changed",
  phone_changed_notification: "Your phone number was changed",
  identity_linked_notification: "A new sign-in method was linked to your account",
  identity_unlinked_notification: "A sign-in method was removed from your account",
  mfa_factor_enrolled_notification: "A new verification method was added to your account",
  mfa_factor_unenrolled_notification: "A verification method was removed from your account",
  mfa_recovery_code_used_notification: "A recovery code was used to sign in to your account"
}
