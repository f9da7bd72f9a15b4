import * as Schema from "effect/Schema"
import { IdentityId, UserId } from "./Ids.js"
import { Timestamp } from "./Timestamp.js"

/**
 * The email an upstream provider reported, trimmed and lower-cased as Supabase Auth stores it
 * (`lower(identity_data->>'email')`). Its shape is not checked: the provider is the authority
 * on its own addresses, and a sign-in must not fail because one looks unusual to us.
 */
export const IdentityEmail = Schema.compose(Schema.Trim, Schema.Lowercase)

/**
 * One account at one provider (`email`, `phone`, `github`, an OIDC upstream…) linked to a user,
 * with the fields of Supabase Auth's identity object. `providerId` is the upstream subject;
 * a user has at most one identity per (provider, providerId).
 */
export class Identity extends Schema.Class<Identity>("Identity")({
  id: IdentityId,
  userId: UserId,
  provider: Schema.NonEmptyTrimmedString,
  providerId: Schema.NonEmptyString,
  identityData: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  email: Schema.OptionFromNullishOr(IdentityEmail, null),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  lastSignInAt: Schema.OptionFromNullishOr(Timestamp, null)
}) {}
