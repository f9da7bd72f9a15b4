import { layer } from "@effect/vitest"
import * as AuthStorageMemory from "../../../../adapters/memory/auth/AuthStorageMemory.js"
import { authStorageContract } from "./AuthStorageContract.js"

layer(AuthStorageMemory.layer)("auth storage contract on memory", authStorageContract)
