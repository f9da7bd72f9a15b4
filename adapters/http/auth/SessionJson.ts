import * as Redacted from "effect/Redacted"
import type * as IssueSession from "../../../application/auth/IssueSession.js"
import * as UserJson from "./UserJson.js"

/**
 * Supabase Auth's session response (`/token`, `/signup` under autoconfirm): the spec's fields
 * (`access_token`, `token_type`, `expires_in`, `refresh_token`) with Supabase Auth's
 * `expires_at` and `user`, which supabase-js reads to store the session.
 */
export const encode = (grant: IssueSession.Grant, extra: Readonly<Record<string, unknown>> = {}) => ({
  access_token: Redacted.value(grant.access.token),
  token_type: "bearer",
  expires_in: grant.access.expiresIn,
  expires_at: grant.access.expiresAt,
  refresh_token: Redacted.value(grant.refreshToken),
  user: UserJson.encode(grant.user, grant.identities),
  ...extra
})
