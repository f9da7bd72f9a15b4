import { layer } from "@effect/vitest"
import * as Layer from "effect/Layer"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import * as TestDatabase from "../../../support/TestDatabase.js"
import { authStorageContract } from "./AuthStorageContract.js"

layer(AuthStoragePg.layer("").pipe(Layer.provide(TestDatabase.authLayer("pglite"))), {
  timeout: "60 seconds"
})(`auth storage contract on ${TestDatabase.describeTarget("pglite")}`, authStorageContract)
