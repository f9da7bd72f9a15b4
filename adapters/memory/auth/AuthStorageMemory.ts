import * as Layer from "effect/Layer"
import * as AuthMemoryState from "./AuthMemoryState.js"
import * as CustomProviderStoreMemory from "./CustomProviderStoreMemory.js"
import * as EnrolmentsMemory from "./EnrolmentsMemory.js"
import * as ExternalLoginStoreMemory from "./ExternalLoginStoreMemory.js"
import * as FactorStoreMemory from "./FactorStoreMemory.js"
import * as FlowStateStoreMemory from "./FlowStateStoreMemory.js"
import * as MailOutboxMemory from "./MailOutboxMemory.js"
import * as OneTimeTokenStoreMemory from "./OneTimeTokenStoreMemory.js"
import * as PasskeyStoreMemory from "./PasskeyStoreMemory.js"
import * as SessionStoreMemory from "./SessionStoreMemory.js"
import * as StepUpsMemory from "./StepUpsMemory.js"
import * as TransactionsMemory from "./TransactionsMemory.js"
import * as UserRepositoryMemory from "./UserRepositoryMemory.js"

/** Every storage port of the auth service in memory, sharing one fresh set of tables. */
export const layer = Layer.merge(EnrolmentsMemory.layer, StepUpsMemory.layer).pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      UserRepositoryMemory.layer,
      SessionStoreMemory.layer,
      MailOutboxMemory.layer,
      OneTimeTokenStoreMemory.layer,
      FlowStateStoreMemory.layer,
      ExternalLoginStoreMemory.layer,
      CustomProviderStoreMemory.layer,
      PasskeyStoreMemory.layer,
      TransactionsMemory.layer
    )
  ),
  // The user repository reads a signed-in user's factors through the factor store.
  Layer.provideMerge(FactorStoreMemory.layer),
  Layer.provide(AuthMemoryState.layer)
)
