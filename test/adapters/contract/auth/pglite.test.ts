import { layer } from "@effect/vitest"
import * as Layer from "effect/Layer"
import * as NodeSecrets from "../../../../adapters/crypto/NodeSecrets.js"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import * as SigningKeyStorePg from "../../../../adapters/postgres/auth/SigningKeyStorePg.js"
import * as TestDatabase from "../../../support/TestDatabase.js"
import { authStorageContract } from "./AuthStorageContract.js"
import { signingKeyStoreContract } from "./SigningKeyStoreContract.js"

layer(
  Layer.merge(
    AuthStoragePg.layer("").pipe(Layer.provide(TestDatabase.authLayer("pglite"))),
    NodeSecrets.layer
  ),
  { timeout: "60 seconds" }
)(`auth storage contract on ${TestDatabase.describeTarget("pglite")}`, authStorageContract)

layer(SigningKeyStorePg.layer.pipe(Layer.provide(TestDatabase.authLayer("pglite"))), {
  timeout: "60 seconds"
})(`signing key store contract on ${TestDatabase.describeTarget("pglite")}`, signingKeyStoreContract)
