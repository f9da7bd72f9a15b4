import * as Layer from "effect/Layer"
import * as AuthMemoryState from "./AuthMemoryState.js"
import * as SessionStoreMemory from "./SessionStoreMemory.js"
import * as UserRepositoryMemory from "./UserRepositoryMemory.js"

/** Every storage port of the auth service in memory, sharing one fresh set of tables. */
export const layer = Layer.mergeAll(UserRepositoryMemory.layer, SessionStoreMemory.layer).pipe(
  Layer.provide(AuthMemoryState.layer)
)
