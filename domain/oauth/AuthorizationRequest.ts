import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ClientId } from "../Ids.js"
import { CodeChallenge, parseChallenge } from "../Pkce.js"
import * as Client from "./Client.js"
import * as RedirectUri from "./RedirectUri.js"
import * as ResourceIndicator from "./ResourceIndicator.js"
import * as Scope from "./Scope.js"

/**
 * What a validated authorize request asked for, carried from GET / through the upstream login
 * and the consent page to the code: the fields every parked stage shares.
 */
export const fields = {
  clientId: ClientId,
  redirectUri: Schema.String,
  codeChallenge: Schema.OptionFromNullOr(CodeChallenge),
  /** The client's own `state`, echoed back to it untouched. */
  clientState: Schema.OptionFromNullOr(Schema.String),
  scope: Schema.OptionFromNullOr(Schema.String),
  /** RFC 8707 resource indicator the tokens will be bound to. */
  resource: Schema.OptionFromNullOr(Schema.String)
}

/**
 * An authorization request (RFC 6749 §4.1.1) as the HTTP adapter decoded it from the query:
 * each parameter that appeared once, and the names of those that appeared more than once.
 */
export interface Parameters {
  readonly clientId: Option.Option<string>
  readonly redirectUri: Option.Option<string>
  readonly responseType: Option.Option<string>
  readonly codeChallenge: Option.Option<string>
  readonly codeChallengeMethod: Option.Option<string>
  readonly scope: Option.Option<string>
  /** RFC 8707 resource indicator. */
  readonly resource: Option.Option<string>
  readonly state: Option.Option<string>
  /** Parameters sent more than once, by their names on the wire (RFC 6749 §3.1 forbids it). */
  readonly repeated: ReadonlyArray<string>
}

/**
 * Why a request is refused. Until the client and its redirect URI are known to match, the
 * error is shown on our own page (`Untrusted`); from then on it goes back to the client
 * (`ToClient`, RFC 6749 §4.1.2.1).
 */
export type Refusal =
  | { readonly _tag: "Untrusted"; readonly code: OAuthErrorCode; readonly description: string }
  | {
      readonly _tag: "ToClient"
      readonly redirectUri: string
      readonly state: Option.Option<string>
      readonly code: OAuthErrorCode
      readonly description: string
    }

/** The error codes of RFC 6749 §4.1.2.1 and RFC 8707 §2 that an authorization request can earn. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"

/** What a valid request asks for: the fields every parked stage carries (see `fields`). */
export interface Valid {
  readonly clientId: ClientId
  readonly redirectUri: string
  readonly codeChallenge: Option.Option<CodeChallenge>
  readonly clientState: Option.Option<string>
  readonly scope: Option.Option<string>
  readonly resource: Option.Option<string>
}

const untrusted = (code: OAuthErrorCode, description: string): Either.Either<never, Refusal> =>
  Either.left({ _tag: "Untrusted", code, description })

/** The client the request names, before anything else can be checked. */
export const clientIdOf = (request: Parameters): Either.Either<string, Refusal> => {
  if (request.repeated.includes("client_id")) return untrusted("invalid_request", "client_id is repeated")
  return Option.match(request.clientId, {
    onNone: () => untrusted("invalid_request", "client_id is required"),
    onSome: Either.right
  })
}

/**
 * The protocol's rules for one client's request: its redirect URI must be registered, then
 * `code` is the only response type, public clients must use PKCE with S256 (RFC 9700 §2.1.1),
 * and scope and resource must be well formed.
 */
export const validate = (request: Parameters, client: Client.Client): Either.Either<Valid, Refusal> => {
  if (request.repeated.includes("redirect_uri"))
    return untrusted("invalid_request", "redirect_uri is repeated")
  if (Option.isNone(request.redirectUri)) return untrusted("invalid_request", "redirect_uri is required")
  const redirectUri = request.redirectUri.value
  if (!RedirectUri.matchesAny(client.redirectUris, redirectUri)) {
    return untrusted("invalid_request", "redirect_uri is not registered for this client")
  }
  const toClient = (code: OAuthErrorCode, description: string): Either.Either<never, Refusal> =>
    Either.left({ _tag: "ToClient", redirectUri, state: request.state, code, description })
  // RFC 8707 §2 lets a client name several resources; a server that takes one at a time
  // refuses more with `invalid_target`. Any other parameter twice is malformed.
  if (request.repeated.includes("resource")) {
    return toClient("invalid_target", "one resource per request is supported")
  }
  const repeated = request.repeated[0]
  if (repeated !== undefined) return toClient("invalid_request", `${repeated} is repeated`)
  // A missing parameter is malformed (RFC 6749 §4.1.2.1); another type is one not supported.
  if (Option.isNone(request.responseType)) return toClient("invalid_request", "response_type is required")
  if (request.responseType.value !== "code") {
    return toClient("unsupported_response_type", "response_type must be code")
  }
  let codeChallenge = Option.none<CodeChallenge>()
  if (Option.isSome(request.codeChallenge)) {
    const parsed = parseChallenge(
      request.codeChallenge.value,
      Option.getOrUndefined(request.codeChallengeMethod)
    )
    if (Either.isLeft(parsed)) return toClient("invalid_request", parsed.left.message)
    codeChallenge = Option.some(parsed.right)
  } else if (Client.mustUsePkce(client)) {
    return toClient("invalid_request", "code_challenge with code_challenge_method S256 is required")
  } else if (Option.isSome(request.codeChallengeMethod)) {
    return toClient("invalid_request", "code_challenge_method without code_challenge")
  }
  if (Option.isSome(request.scope) && !Scope.isValid(request.scope.value)) {
    return toClient("invalid_scope", "malformed scope")
  }
  if (Option.isSome(request.resource) && !ResourceIndicator.isResourceIndicator(request.resource.value)) {
    return toClient("invalid_target", ResourceIndicator.malformed)
  }
  return Either.right({
    clientId: client.id,
    redirectUri,
    codeChallenge,
    clientState: request.state,
    scope: request.scope,
    resource: request.resource
  })
}
