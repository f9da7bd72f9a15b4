import * as Schema from "effect/Schema"

/**
 * The credential a WebAuthn factor proves itself with, saved when its registration ceremony
 * succeeds (the factor's `web_authn_credential`): what later assertions are checked against.
 * Binary values are base64url, as the ceremony library hands them over. The AAGUID is kept
 * beside it, in the factor's own `web_authn_aaguid`, as Supabase Auth shows it.
 */
export class WebAuthnCredential extends Schema.Class<WebAuthnCredential>("WebAuthnCredential")({
  credentialId: Schema.String,
  publicKey: Schema.String,
  attestationType: Schema.String,
  signCount: Schema.NonNegativeInt,
  transports: Schema.Array(Schema.String),
  backupEligible: Schema.Boolean,
  backedUp: Schema.Boolean
}) {}
