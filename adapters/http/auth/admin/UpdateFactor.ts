import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type FactorChanges, updateFactor } from "../../../../application/auth/admin/UpdateFactor.js"
import type { UserId } from "../../../../domain/Ids.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as AuthJson from "../AuthJson.js"
import * as Endpoint from "../Endpoint.js"
import { field } from "../Endpoint.js"
import * as DeleteFactor from "./DeleteFactor.js"

const Body = Schema.Struct({ friendly_name: field(Schema.String), phone: field(Schema.String) })
const decodeBody = Endpoint.body(Body)

/** The path's ids (DeleteFactor.ts's reading), then `{friendly_name?, phone?}`. */
export const input = (request: HttpRequest) =>
  Effect.flatMap(DeleteFactor.input(request), (path) =>
    Effect.map(decodeBody(request), (body) => ({
      ...path,
      changes: {
        friendlyName: Option.fromNullable(body.friendly_name),
        phone: Option.fromNullable(body.phone)
      } satisfies FactorChanges
    }))
  )

/**
 * PUT /admin/users/{user_id}/factors/{factor_id} — supabase-js `admin.mfa.updateFactor`
 * (Supabase Auth's `adminUserUpdateFactor`): the factor as updated.
 */
export const handle = (request: {
  readonly userId: UserId
  readonly factorId: string
  readonly changes: FactorChanges
}) =>
  Effect.map(updateFactor(request.userId, request.factorId, request.changes), (factor) =>
    HttpMessage.json(AuthJson.factor(factor))
  )
