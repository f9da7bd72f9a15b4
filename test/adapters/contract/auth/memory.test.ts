import { layer } from "@effect/vitest"
import * as SigningKeyStoreMemory from "../../../../adapters/memory/auth/SigningKeyStoreMemory.js"
import { signingKeyStoreContract } from "./SigningKeyStoreContract.js"

layer(SigningKeyStoreMemory.layer)("auth storage contract on memory", signingKeyStoreContract)
