import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { decodeProtectedHeader } from "jose"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { addKey } from "../../../application/auth/keys/AddKey.js"
import { retireKey } from "../../../application/auth/keys/RetireKey.js"
import { rotateKeys } from "../../../application/auth/keys/RotateKeys.js"
import type { AuthConfig } from "../../../bootstrap/auth/AuthConfig.js"
import * as AuthLayers from "../../../bootstrap/auth/AuthLayers.js"
import * as SigningKey from "../../../domain/auth/SigningKey.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as AuthServerHarness from "../support/InProcessAuth.js"

const decodeJwks = Schema.decodeUnknownSync(
  Schema.Struct({ keys: Schema.Array(Schema.Struct({ kid: Schema.String })) })
)

// The operator's commands open the instance's database beside it, as `latchkey auth keys` does
// from another process: that needs a PostgreSQL server (the embedded one serves one process).
// CI always has one.
const hasServer = inject("postgresUrl") !== null

let scope: Scope.CloseableScope
let baseUrl = ""
let anonKey = ""
let config: AuthConfig

beforeAll(async () => {
  if (!hasServer) return
  scope = Effect.runSync(Scope.make())
  // The instance reads the stored keys on every request, so that a rotation is seen at once
  // rather than after the 30 seconds instances otherwise reuse them.
  const running = await Effect.runPromise(
    Scope.extend(AuthServerHarness.start({ keyCacheLifetime: 0 }), scope)
  )
  baseUrl = running.baseUrl
  config = running.config
  anonKey = await SupabaseClientSupport.apiKey("anon")
}, 60_000)

afterAll(async () => {
  if (hasServer) await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** The storage and crypto of the instance's database, as `latchkey auth keys` runs on them. */
const operatorServices = () => AuthLayers.core(config)

const kidOf = (token: string | undefined) => decodeProtectedHeader(token ?? "").kid

describe.runIf(hasServer)("signing-key rotation while clients keep working", () => {
  it("tokens of the old key keep working; new ones are signed with the new key", async () => {
    const password = "correct horse battery staple"
    const before = SupabaseClientSupport.client(baseUrl, anonKey)
    const signedUp = await before.auth.signUp({ email: `${crypto.randomUUID()}@example.com`, password })
    const oldToken = signedUp.data.session?.access_token
    const oldKid = kidOf(oldToken)

    const added = await Effect.runPromise(Effect.scoped(Effect.provide(addKey("ES256"), operatorServices())))
    const jwks = async () =>
      decodeJwks(await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json()).keys.map((key) => key.kid)
    // Published before it signs.
    expect(await jwks()).toEqual(expect.arrayContaining([oldKid, added.kid]))
    expect(kidOf((await before.auth.refreshSession()).data.session?.access_token)).toBe(oldKid)

    await Effect.runPromise(Effect.scoped(Effect.provide(rotateKeys, operatorServices())))
    const after = SupabaseClientSupport.client(baseUrl, anonKey)
    const signedIn = await after.auth.signInWithPassword({ email: signedUp.data.user?.email ?? "", password })
    const newToken = signedIn.data.session?.access_token
    expect(kidOf(newToken)).toBe(added.kid)
    expect(decodeProtectedHeader(newToken ?? "").alg).toBe("ES256")

    // The old key's token still verifies, at the service and in the client (getClaims, JWKS).
    expect((await SupabaseClientSupport.client(baseUrl, anonKey).auth.getUser(oldToken)).error).toBeNull()
    const claims = await after.auth.getClaims()
    expect(claims.error).toBeNull()
    expect(claims.data?.claims.sub).toBe(signedUp.data.user?.id)

    // Retired, the old key stops verifying at once.
    await Effect.runPromise(
      Effect.scoped(Effect.provide(retireKey(SigningKey.Kid.make(oldKid ?? "")), operatorServices()))
    )
    const refused = await SupabaseClientSupport.client(baseUrl, anonKey).auth.getUser(oldToken)
    expect(SupabaseClientSupport.apiError(refused.error)).toMatchObject({ status: 403, code: "bad_jwt" })
    expect(await jwks()).toEqual([added.kid])
  })
})
