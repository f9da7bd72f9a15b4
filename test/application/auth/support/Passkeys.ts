import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { SignedIn } from "../../../../application/auth/Authenticate.js"
import { finishPasskeyRegistration } from "../../../../application/auth/FinishPasskeyRegistration.js"
import { passkeySignIn } from "../../../../application/auth/PasskeySignIn.js"
import { startPasskeyRegistration } from "../../../../application/auth/StartPasskeyRegistration.js"
import { startPasskeySignIn } from "../../../../application/auth/StartPasskeySignIn.js"
import { SoftwareAuthenticator } from "../../../support/auth/SoftwareAuthenticator.js"
import { client } from "./Scenarios.js"

/** The origin `MemoryServices.mfaSettings` lists for its relying party (`localhost`). */
export const origin = "http://localhost:3000"

/** A platform authenticator in a browser at the relying party's origin. */
export const authenticator = (
  settings: Partial<ConstructorParameters<typeof SoftwareAuthenticator>[0]> = {}
) => new SoftwareAuthenticator({ origin, ...settings })

/** A passkey registered by `signedIn` on `device`, through the two registration use cases. */
export const registered = (signedIn: SignedIn, device: SoftwareAuthenticator) =>
  Effect.gen(function* () {
    const started = yield* startPasskeyRegistration(signedIn)
    const credential = device.register(started.options)
    return yield* finishPasskeyRegistration(signedIn, {
      challengeId: started.challengeId,
      credential: Option.some(credential)
    })
  })

/** A sign-in challenge and the assertion `device` answers it with. */
export const assertion = (
  device: SoftwareAuthenticator,
  overrides: Parameters<SoftwareAuthenticator["assert"]>[1] = {}
) =>
  Effect.gen(function* () {
    const started = yield* startPasskeySignIn()
    return { challengeId: started.challengeId, credential: device.assert(started.options, overrides) }
  })

/** A sign-in with `device`'s newest passkey, through the two sign-in use cases. */
export const signedInWith = (device: SoftwareAuthenticator) =>
  Effect.flatMap(assertion(device), (answer) =>
    passkeySignIn({ challengeId: answer.challengeId, credential: Option.some(answer.credential), client })
  )
