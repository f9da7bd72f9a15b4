import { layer } from "@effect/vitest"
import * as Layer from "effect/Layer"
import * as JobLockPg from "../../../adapters/postgres/JobLockPg.js"
import * as OAuthStoragePg from "../../../adapters/postgres/oauth/OAuthStoragePg.js"
import * as TestDatabase from "../../support/TestDatabase.js"
import { oauthStorageContract } from "./oauth/OAuthStorageContract.js"

layer(
  Layer.mergeAll(OAuthStoragePg.layer, JobLockPg.layerFor(TestDatabase.isEmbedded("server"))).pipe(
    Layer.provide(TestDatabase.layer("server"))
  ),
  { timeout: "60 seconds" }
)(`oauth storage contract on ${TestDatabase.describeTarget("server")}`, oauthStorageContract)
