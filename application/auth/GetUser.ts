import * as Effect from "effect/Effect"
import * as Telemetry from "../Telemetry.js"
import type { SignedIn } from "./Authenticate.js"
import { UserRepository } from "./ports/UserRepository.js"

/** GET /user: the signed-in user's identities, to go with the user the token named. */
export const identitiesOf = Telemetry.fn("GetUser.identitiesOf")(
  (signedIn: SignedIn) => Effect.flatMap(UserRepository, (users) => users.identitiesOf(signedIn.user.id)),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
