import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { AdminUserRequest } from "../../../../application/auth/admin/AdminUserRequest.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as Endpoint from "../Endpoint.js"
import { field } from "../Endpoint.js"

const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const Body = Schema.Struct({
  id: field(Schema.String),
  aud: field(Schema.String),
  role: field(Schema.String),
  email: field(Schema.String),
  phone: field(Schema.String),
  password: field(Schema.String),
  password_hash: field(Schema.String),
  email_confirm: field(Schema.Boolean),
  phone_confirm: field(Schema.Boolean),
  user_metadata: field(Metadata),
  app_metadata: field(Metadata),
  ban_duration: field(Schema.String)
})

/** The admin API's user fields (supabase-js `AdminUserAttributes`), decoded as Supabase Auth does. */
export const decode = (request: HttpRequest) =>
  Effect.map(
    Endpoint.body(Body)(request),
    (body): AdminUserRequest => ({
      id: body.id ?? "",
      aud: body.aud ?? "",
      role: body.role ?? "",
      email: body.email ?? "",
      phone: body.phone ?? "",
      password: Option.fromNullable(body.password),
      passwordHash: body.password_hash ?? "",
      emailConfirm: body.email_confirm ?? false,
      phoneConfirm: body.phone_confirm ?? false,
      userMetadata: Option.fromNullable(body.user_metadata),
      appMetadata: Option.fromNullable(body.app_metadata),
      banDuration: body.ban_duration ?? ""
    })
  )
