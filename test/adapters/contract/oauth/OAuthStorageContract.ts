import { jobLockContract } from "../JobLockContract.js"
import { rateLimiterContract } from "../RateLimiterContract.js"
import type { It } from "../Storage.js"
import { authorizationCodeStoreContract } from "./AuthorizationCodeStoreContract.js"
import { clientRepositoryContract } from "./ClientRepositoryContract.js"
import { consentStoreContract } from "./ConsentStoreContract.js"
import { pendingLoginStoreContract } from "./PendingLoginStoreContract.js"
import { sessionStoreContract } from "./SessionStoreContract.js"
import { tokenStoreContract } from "./TokenStoreContract.js"
import { upstreamUsersContract } from "./UpstreamUsersContract.js"
import { usedAssertionsContract } from "./UsedAssertionsContract.js"

/** The one contract every oauth storage adapter set must pass. */
export const oauthStorageContract = (it: It) => {
  clientRepositoryContract(it)
  upstreamUsersContract(it)
  authorizationCodeStoreContract(it)
  pendingLoginStoreContract(it)
  consentStoreContract(it)
  sessionStoreContract(it)
  tokenStoreContract(it)
  usedAssertionsContract(it)
  rateLimiterContract(it)
  jobLockContract(it)
}
