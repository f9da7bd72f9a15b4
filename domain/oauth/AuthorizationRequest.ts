import { Schema } from "effect"
import { ClientId } from "../Ids.js"
import { CodeChallenge } from "../Pkce.js"

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
