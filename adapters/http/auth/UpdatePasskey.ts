import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { renamePasskey } from "../../../application/auth/RenamePasskey.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import { body, field } from "./Endpoint.js"
import * as PasskeyJson from "./PasskeyJson.js"

/** `{friendly_name}` as supabase-js `passkey.update` sends it. */
const Body = Schema.Struct({ friendly_name: field(Schema.String) })

/** The path's passkey id with the body's name. */
export const input = (request: HttpRequest) =>
  Effect.map(body(Body)(request), (read) => ({
    passkeyId: request.params.passkey_id ?? "",
    friendlyName: read.friendly_name ?? ""
  }))

/** PATCH /passkeys/{passkey_id} — supabase-js `passkey.update` (Supabase Auth's `PasskeyUpdate`): the item. */
export const handle = (read: Effect.Effect.Success<ReturnType<typeof input>>, signedIn: SignedIn) =>
  Effect.map(renamePasskey(signedIn, read.passkeyId, read.friendlyName), (passkey) =>
    HttpMessage.json(PasskeyJson.item(passkey))
  )
