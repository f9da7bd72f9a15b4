import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { inviteUser } from "../../../../application/auth/admin/InviteUser.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as AuthJson from "../AuthJson.js"
import { field } from "../Endpoint.js"

export const Body = Schema.Struct({
  email: field(Schema.String),
  data: field(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

/** POST /invite — supabase-js `admin.inviteUserByEmail`, for a service-role or admin token. */
export const handle = (body: typeof Body.Type, _: unknown, request: HttpRequest) =>
  Effect.gen(function* () {
    const invited = yield* inviteUser({
      email: body.email ?? "",
      data: body.data ?? {},
      redirectTo: new URLSearchParams(request.query).get("redirect_to") ?? ""
    })
    return HttpMessage.json(AuthJson.user(invited.user, invited.identities))
  })
