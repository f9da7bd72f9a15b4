import * as Context from "effect/Context"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type { Identity } from "../../../domain/Identity.js"
import type { ClientId, FamilyId, SecretHash, UserId } from "../../../domain/Ids.js"
import type { AccessToken } from "../../../domain/oauth/AccessToken.js"
import type { AuthorizationCode } from "../../../domain/oauth/AuthorizationCode.js"
import type { BrowserSession } from "../../../domain/oauth/BrowserSession.js"
import type { Client } from "../../../domain/oauth/Client.js"
import type { PendingConsent } from "../../../domain/oauth/PendingConsent.js"
import type { PendingLogin } from "../../../domain/oauth/PendingLogin.js"
import type { Family } from "../../../domain/RefreshTokenFamily.js"
import type { User } from "../../../domain/User.js"

/**
 * All in-memory tables behind one Ref, so that a transition touching several of them
 * (removing a client with its tokens, revoking a family with its access tokens) is one
 * atomic `Ref.modify`, as it is one transaction in Postgres.
 */
export interface Tables {
  readonly clients: HashMap.HashMap<ClientId, Client>
  readonly users: HashMap.HashMap<UserId, User>
  /** Keyed by `provider \u0000 subject`. */
  readonly identities: HashMap.HashMap<string, Identity>
  readonly codes: HashMap.HashMap<SecretHash, AuthorizationCode>
  readonly pendingLogins: HashMap.HashMap<SecretHash, PendingLogin>
  readonly accessTokens: HashMap.HashMap<SecretHash, AccessToken>
  readonly families: HashMap.HashMap<FamilyId, Family>
  readonly refreshTokens: HashMap.HashMap<
    SecretHash,
    { readonly familyId: FamilyId; readonly generation: number }
  >
  /** Keyed by `userId \u0000 clientId`. */
  readonly consents: HashMap.HashMap<
    string,
    { readonly userId: UserId; readonly clientId: ClientId; readonly scopes: ReadonlyArray<string> }
  >
  readonly pendingConsents: HashMap.HashMap<SecretHash, PendingConsent>
  readonly sessions: HashMap.HashMap<SecretHash, BrowserSession>
  /** Keyed by `clientId \u0000 jtiHash`. */
  readonly usedAssertions: HashMap.HashMap<string, { readonly clientId: ClientId; readonly until: Date }>
}

export const empty: Tables = {
  clients: HashMap.empty(),
  users: HashMap.empty(),
  identities: HashMap.empty(),
  codes: HashMap.empty(),
  pendingLogins: HashMap.empty(),
  accessTokens: HashMap.empty(),
  families: HashMap.empty(),
  refreshTokens: HashMap.empty(),
  consents: HashMap.empty(),
  pendingConsents: HashMap.empty(),
  sessions: HashMap.empty(),
  usedAssertions: HashMap.empty()
}

export class MemoryState extends Context.Tag("latchkey/memory/oauth/MemoryState")<
  MemoryState,
  Ref.Ref<Tables>
>() {}

export const layer = Layer.effect(MemoryState, Ref.make(empty))
