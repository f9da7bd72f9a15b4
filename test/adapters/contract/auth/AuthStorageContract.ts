import type { It } from "./AuthStorage.js"
import { enrolmentsContract } from "./EnrolmentsContract.js"
import { externalLoginStoreContract } from "./ExternalLoginStoreContract.js"
import { factorStoreContract } from "./FactorStoreContract.js"
import { flowStateStoreContract } from "./FlowStateStoreContract.js"
import { mailOutboxContract } from "./MailOutboxContract.js"
import { oneTimeTokenStoreContract } from "./OneTimeTokenStoreContract.js"
import { passkeyStoreContract } from "./PasskeyStoreContract.js"
import { sessionStoreContract } from "./SessionStoreContract.js"
import { stepUpsContract } from "./StepUpsContract.js"
import { userRepositoryContract } from "./UserRepositoryContract.js"

/** The one contract every auth storage adapter set must pass. */
export const authStorageContract = (it: It) => {
  userRepositoryContract(it)
  sessionStoreContract(it)
  mailOutboxContract(it)
  oneTimeTokenStoreContract(it)
  flowStateStoreContract(it)
  externalLoginStoreContract(it)
  enrolmentsContract(it)
  factorStoreContract(it)
  passkeyStoreContract(it)
  stepUpsContract(it)
}
