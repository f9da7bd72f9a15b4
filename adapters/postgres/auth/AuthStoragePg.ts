import * as Layer from "effect/Layer"
import * as AuthTables from "./AuthTables.js"
import * as CustomProviderStorePg from "./CustomProviderStorePg.js"
import * as EnrolmentsPg from "./EnrolmentsPg.js"
import * as ExternalLoginStorePg from "./ExternalLoginStorePg.js"
import * as FactorStorePg from "./FactorStorePg.js"
import * as FlowStateStorePg from "./FlowStateStorePg.js"
import * as MailOutboxPg from "./MailOutboxPg.js"
import * as OneTimeTokenStorePg from "./OneTimeTokenStorePg.js"
import * as PasskeyStorePg from "./PasskeyStorePg.js"
import * as SessionStorePg from "./SessionStorePg.js"
import * as StepUpsPg from "./StepUpsPg.js"
import * as TransactionsPg from "./TransactionsPg.js"
import * as UserRepositoryPg from "./UserRepositoryPg.js"

/**
 * Every storage port of the auth service on Postgres (or embedded PGlite), on the tables of
 * one `DB_NAMESPACE` (empty: no prefix); needs a SqlClient.
 */
export const layer = (namespace: string) =>
  Layer.mergeAll(
    UserRepositoryPg.layer,
    SessionStorePg.layer,
    MailOutboxPg.layer,
    OneTimeTokenStorePg.layer,
    FlowStateStorePg.layer,
    ExternalLoginStorePg.layer,
    CustomProviderStorePg.layer,
    EnrolmentsPg.layer,
    FactorStorePg.layer,
    PasskeyStorePg.layer,
    StepUpsPg.layer,
    TransactionsPg.layer
  ).pipe(Layer.provide(AuthTables.layer(namespace)))
