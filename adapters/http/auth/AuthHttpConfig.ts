import * as Context from "effect/Context"
import type { Limit } from "../../../application/ports/RateLimiter.js"

/** What the auth service's HTTP driver needs beyond the use cases' settings (`AuthSettings`). */
export class AuthHttpConfig extends Context.Tag("latchkey/auth/AuthHttpConfig")<
  AuthHttpConfig,
  {
    /** The build's version, as GET /health reports it. */
    readonly version: string
    /** `RATE_LIMIT_TOKEN_REFRESH`: requests to /token per client address. */
    readonly tokenLimit: Limit
    /** `RATE_LIMIT_ANONYMOUS_USERS`: anonymous sign-ins per client address. */
    readonly anonymousLimit: Limit
    /**
     * `MAILER_LINK_CONFIRMATION_PAGE`: GET /verify shows a page whose button uses the link's
     * token, so that mail scanners and link previews, which follow links but press no buttons,
     * leave it working.
     */
    readonly linkConfirmationPage: boolean
    /** `RATE_LIMIT_OTP`: requests that send a message (sign-up, /otp, /recover, …) per client address. */
    readonly otpLimit: Limit
    /** `RATE_LIMIT_VERIFY`: /verify requests per client address. */
    readonly verifyLimit: Limit
    /**
     * `MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY`: factor challenges per client address, and factor
     * verifies per client address, each counted on its own as in Supabase Auth.
     */
    readonly factorLimit: Limit
    /** `RATE_LIMIT_PASSKEY`: passkey sign-in options per client address. */
    readonly passkeyLimit: Limit
  }
>() {}
