import type * as Option from "effect/Option"

/** The admin API's user fields (POST /admin/users, PUT /admin/users/{user_id}), as decoded. */
export interface AdminUserRequest {
  /** POST only: the new user's id, when the caller chooses it (imports). */
  readonly id: string
  readonly aud: string
  readonly role: string
  readonly email: string
  readonly phone: string
  readonly password: Option.Option<string>
  /** POST only: a hash to keep as it is (bcrypt from Supabase, argon2). */
  readonly passwordHash: string
  readonly emailConfirm: boolean
  readonly phoneConfirm: boolean
  readonly userMetadata: Option.Option<Readonly<Record<string, unknown>>>
  readonly appMetadata: Option.Option<Readonly<Record<string, unknown>>>
  /** A Go duration, or `none` to lift a ban; `""` changes nothing. */
  readonly banDuration: string
}
