import { layer } from "@effect/vitest"
import * as Layer from "effect/Layer"
import * as NodeSecrets from "../../../../adapters/crypto/NodeSecrets.js"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import * as SigningKeyStorePg from "../../../../adapters/postgres/auth/SigningKeyStorePg.js"
import * as TestDatabase from "../../../support/TestDatabase.js"
import { authStorageContract } from "./AuthStorageContract.js"
import { signingKeyStoreContract } from "./SigningKeyStoreContract.js"

// With a namespace, so that every statement of the contracts runs on prefixed tables.
layer(
  Layer.merge(
    AuthStoragePg.layer("tenant").pipe(Layer.provide(TestDatabase.authLayer("server", ["tenant"]))),
    NodeSecrets.layer
  ),
  { timeout: "60 seconds" }
)(`auth storage contract on ${TestDatabase.describeTarget("server")}`, authStorageContract)

layer(SigningKeyStorePg.layer.pipe(Layer.provide(TestDatabase.authLayer("server", ["tenant"]))), {
  timeout: "60 seconds"
})(`signing key store contract on ${TestDatabase.describeTarget("server")}`, signingKeyStoreContract)
