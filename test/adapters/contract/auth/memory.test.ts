import { layer } from "@effect/vitest"
import * as Layer from "effect/Layer"
import * as NodeSecrets from "../../../../adapters/crypto/NodeSecrets.js"
import * as AuthStorageMemory from "../../../../adapters/memory/auth/AuthStorageMemory.js"
import * as SigningKeyStoreMemory from "../../../../adapters/memory/auth/SigningKeyStoreMemory.js"
import { authStorageContract } from "./AuthStorageContract.js"
import { signingKeyStoreContract } from "./SigningKeyStoreContract.js"

layer(Layer.merge(AuthStorageMemory.layer, NodeSecrets.layer))(
  "auth storage contract on memory",
  authStorageContract
)

layer(SigningKeyStoreMemory.layer)("signing key store contract on memory", signingKeyStoreContract)
