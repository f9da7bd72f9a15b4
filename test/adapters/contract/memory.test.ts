import { layer } from "@effect/vitest"
import * as OAuthStorageMemory from "../../../adapters/memory/oauth/OAuthStorageMemory.js"
import { oauthStorageContract } from "./oauth/OAuthStorageContract.js"

layer(OAuthStorageMemory.layer)("oauth storage contract on memory", oauthStorageContract)
