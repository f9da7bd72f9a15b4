import * as Layer from "effect/Layer"
import * as JobLockMemory from "../JobLockMemory.js"
import * as RateLimiterMemory from "../RateLimiterMemory.js"
import * as AuthorizationCodeStoreMemory from "./AuthorizationCodeStoreMemory.js"
import * as ClientRepositoryMemory from "./ClientRepositoryMemory.js"
import * as ConsentStoreMemory from "./ConsentStoreMemory.js"
import * as MemoryState from "./MemoryState.js"
import * as PendingLoginStoreMemory from "./PendingLoginStoreMemory.js"
import * as SessionStoreMemory from "./SessionStoreMemory.js"
import * as TokenStoreMemory from "./TokenStoreMemory.js"
import * as UpstreamUsersMemory from "./UpstreamUsersMemory.js"
import * as UsedAssertionsMemory from "./UsedAssertionsMemory.js"

/** Every storage port of the oauth service in memory, sharing one fresh set of tables. */
export const layer = Layer.mergeAll(
  ClientRepositoryMemory.layer,
  UpstreamUsersMemory.layer,
  AuthorizationCodeStoreMemory.layer,
  PendingLoginStoreMemory.layer,
  TokenStoreMemory.layer,
  RateLimiterMemory.layer,
  JobLockMemory.layer,
  ConsentStoreMemory.layer,
  SessionStoreMemory.layer,
  UsedAssertionsMemory.layer
).pipe(Layer.provide(MemoryState.layer))
