import * as Schema from "effect/Schema"

/** A user of either service; a UUID so that it can be a JWT `sub` compatible with Supabase Auth. */
export const UserId = Schema.UUID.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

/** An identity (one upstream account linked to a user). */
export const IdentityId = Schema.UUID.pipe(Schema.brand("IdentityId"))
export type IdentityId = typeof IdentityId.Type

/**
 * An OAuth client id. Operator-seeded ids are free-form (`cli`, `my-app`), dynamic ones are
 * random, and Client ID Metadata Document ids are https URLs, so only length is constrained.
 */
export const ClientId = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(2048),
  Schema.pattern(/^[\x21-\x7e]+$/, { message: () => "a client_id is printable ASCII without spaces" }),
  Schema.brand("ClientId")
)
export type ClientId = typeof ClientId.Type

/** A refresh-token family: every token descended from one grant. */
export const FamilyId = Schema.UUID.pipe(Schema.brand("FamilyId"))
export type FamilyId = typeof FamilyId.Type

/** One authorization grant (an authorization code and every token issued from it). */
export const GrantId = Schema.UUID.pipe(Schema.brand("GrantId"))
export type GrantId = typeof GrantId.Type

/** The hex SHA-256 digest under which a secret (token, code, client secret, state) is stored. */
export const SecretHash = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/), Schema.brand("SecretHash"))
export type SecretHash = typeof SecretHash.Type
