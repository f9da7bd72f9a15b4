import { layer } from "@effect/vitest"
import * as Layer from "effect/Layer"
import * as AesGcmTokenSealer from "../../../../adapters/crypto/auth/AesGcmTokenSealer.js"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import * as TestDatabase from "../../../support/TestDatabase.js"
import { authStorageContract } from "./AuthStorageContract.js"

// With a namespace, so that every statement of the contract runs on prefixed tables.
layer(
  Layer.merge(
    AuthStoragePg.layer("tenant").pipe(Layer.provide(TestDatabase.authLayer("server", ["tenant"]))),
    AesGcmTokenSealer.layer
  ),
  {
    timeout: "60 seconds"
  }
)(`auth storage contract on ${TestDatabase.describeTarget("server")}`, authStorageContract)
