import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ClientId, SecretHash } from "../Ids.js"
import * as Time from "../Time.js"
import * as Lifetimes from "./Lifetimes.js"

/** Public clients have no secret and must use PKCE; confidential ones authenticate with a secret. */
export const ClientType = Schema.Literal("public", "confidential")
export type ClientType = typeof ClientType.Type

/**
 * Where a client comes from. `dynamic`: RFC 7591 registration; `seeded`: created by an
 * operator (CLI); `builtin`: the vendor CLI client seeded by `migrate`; `metadata_document`: a
 * Client ID Metadata Document, whose https URL is the client id (the row mirrors the document,
 * which stays the authority: it is fetched again whenever its cached copy expires).
 */
export const ClientOrigin = Schema.Literal("dynamic", "seeded", "builtin", "metadata_document")
export type ClientOrigin = typeof ClientOrigin.Type

export class Client extends Schema.Class<Client>("Client")({
  id: ClientId,
  name: Schema.String,
  type: ClientType,
  origin: ClientOrigin,
  redirectUris: Schema.Array(Schema.String),
  /** Only confidential clients have one; it is the SHA-256 of a high-entropy secret. */
  secretHash: Schema.OptionFromNullOr(SecretHash),
  /**
   * Where a client that proves who it is with a JWT signed by its own key (RFC 7523
   * `private_key_jwt`) publishes its public keys. Only metadata-document clients have one: their
   * document cannot hold a secret, but it can name keys. Such a client is public in how its
   * grants work (PKCE, refresh tokens) and must in addition sign at /token and /revoke.
   */
  jwksUri: Schema.propertySignature(Schema.OptionFromNullOr(Schema.String)).pipe(
    Schema.withConstructorDefault(() => Option.none())
  ),
  createdAt: Schema.DateFromSelf,
  lastUsedAt: Schema.OptionFromNullOr(Schema.DateFromSelf)
}) {}

/** The moment from which a client's idleness is counted: its last authorize, else its registration. */
export const lastActivity = (client: Client): Date =>
  Option.getOrElse(client.lastUsedAt, () => client.createdAt)

/**
 * Only dynamically registered public clients are reaped: operators and the vendor own the
 * others, and a confidential client's secret is held by someone who expects it to keep working.
 * A metadata-document client is not registered with us at all: its row only mirrors the
 * document and anchors its codes and tokens, so reaping it would merely revoke live grants.
 */
export const isReapable = (client: Client): boolean => client.origin === "dynamic" && client.type === "public"

/** When an unused reapable client becomes eligible for removal. */
export const idleDeadline = (client: Client): Date =>
  Time.plus(lastActivity(client), Lifetimes.dynamicClientIdle)

/** Idle for the full 90 days: at the deadline or later, the client is gone. */
export const isIdle = (client: Client, now: Date): boolean =>
  isReapable(client) && Time.isAtOrAfter(now, idleDeadline(client))

/**
 * The same rule as a cut-off for storage queries: a reapable client whose last activity is at
 * or before this instant is idle.
 */
export const idleCutoff = (now: Date): Date => Time.minus(now, Lifetimes.dynamicClientIdle)

/**
 * Clients skip our consent page when an operator or the vendor vouched for them; anyone can
 * register dynamically or publish a metadata document, so those clients always ask.
 */
export const requiresConsent = (client: Client): boolean =>
  client.origin === "dynamic" || client.origin === "metadata_document"

/** Refresh tokens go to public clients only; confidential web clients keep a cookie session. */
export const receivesRefreshTokens = (client: Client): boolean => client.type === "public"

/**
 * Public clients cannot prove who they are at the token endpoint, so PKCE (S256) is what binds
 * a code to the client that asked for it (RFC 9700 §2.1.1).
 */
export const mustUsePkce = (client: Client): boolean => client.type === "public"

/**
 * A confidential web client's user keeps a browser session with us, so the next authorize
 * skips the upstream; public clients (CLIs, connectors) always go through the upstream.
 */
export const keepsBrowserSession = (client: Client): boolean => client.type === "confidential"
