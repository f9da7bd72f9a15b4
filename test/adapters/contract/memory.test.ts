import { layer } from "@effect/vitest"
import * as OAuthStorageMemory from "../../../adapters/memory/OAuthStorageMemory.js"
import { oauthStorageContract } from "./OAuthStorageContract.js"

layer(OAuthStorageMemory.layer)("oauth storage contract on memory", oauthStorageContract)
