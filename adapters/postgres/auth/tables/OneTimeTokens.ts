import * as Schema from "effect/Schema"
import { OneTimeToken } from "../../../../domain/auth/OneTimeToken.js"

/** The `one_time_tokens` table: the row a token is written as, under its field names. */
export const row = Schema.encodeSync(OneTimeToken)

/** The columns `row` fills. */
export const insertColumns = [
  "id",
  "user_id",
  "purpose",
  "sent_to",
  "link_hash",
  "code_hash",
  "failed_attempts",
  "created_at",
  "expires_at",
  "used_at",
  "flow_state_id"
] as const
