import * as Schema from "effect/Schema"
import { FlowState } from "../../../../domain/auth/FlowState.js"

/** The `flow_states` table: the row a PKCE flow is written as, under its field names. */
export const row = Schema.encodeSync(FlowState)

/** The columns `row` fills. */
export const insertColumns = [
  "id",
  "user_id",
  "code_challenge",
  "code_challenge_method",
  "authentication_method",
  "auth_code_hash",
  "auth_code_issued_at",
  "provider_tokens",
  "created_at"
] as const
