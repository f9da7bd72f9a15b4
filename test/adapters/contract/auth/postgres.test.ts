import { layer } from "@effect/vitest"
import * as Layer from "effect/Layer"
import * as SigningKeyStorePg from "../../../../adapters/postgres/auth/SigningKeyStorePg.js"
import * as TestDatabase from "../../../support/TestDatabase.js"
import { signingKeyStoreContract } from "./SigningKeyStoreContract.js"

layer(SigningKeyStorePg.layer.pipe(Layer.provide(TestDatabase.authLayer("server"))), {
  timeout: "60 seconds"
})(`auth storage contract on ${TestDatabase.describeTarget("server")}`, signingKeyStoreContract)
