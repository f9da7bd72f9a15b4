import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { UpstreamUsers } from "../../../application/oauth/ports/UpstreamUsers.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as UpstreamProfile from "../../../domain/UpstreamProfile.js"
import { User } from "../../../domain/User.js"
import { decodeFirst } from "../Rows.js"

export const layer = Layer.effect(
  UpstreamUsers,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const encodeUser = Schema.encodeSync(User)

    return {
      // One statement: the identity upsert decides, under the unique (provider, provider_id)
      // index, whether this login creates the user; a concurrent first login waits on that
      // index entry and then takes the DO UPDATE branch, so both end with the same user.
      upsertFromUpstream: Telemetry.fn("UpstreamUsersPg.upsertFromUpstream")(
        (profile, ids, now) => {
          const fresh = encodeUser(UpstreamProfile.newUser(ids.userId, profile, now))
          const identity = UpstreamProfile.newIdentity(ids.identityId, ids.userId, profile, now)
          const upsert = sql`
          WITH identity AS (
            INSERT INTO oauth.identities
              (id, user_id, provider, provider_id, identity_data, email, created_at, updated_at, last_sign_in_at)
            VALUES (${identity.id}, ${identity.userId}, ${identity.provider}, ${identity.providerId},
                    ${JSON.stringify(identity.identityData)}::jsonb, ${Option.getOrNull(identity.email)},
                    ${now}, ${now}, ${now})
            ON CONFLICT (provider, provider_id) DO UPDATE
              SET identity_data = EXCLUDED.identity_data, email = EXCLUDED.email,
                  updated_at = EXCLUDED.updated_at, last_sign_in_at = EXCLUDED.last_sign_in_at
            RETURNING user_id
          ), created AS (
            INSERT INTO oauth.users
              (id, aud, role, email, email_confirmed_at, last_sign_in_at, app_metadata, user_metadata,
               is_anonymous, created_at, updated_at)
            SELECT ${fresh.id}, ${fresh.aud}, ${fresh.role}, ${fresh.email}, ${fresh.emailConfirmedAt},
                   ${now}, ${JSON.stringify(fresh.appMetadata)}::jsonb, ${JSON.stringify(fresh.userMetadata)}::jsonb,
                   false, ${now}, ${now}
            FROM identity WHERE identity.user_id = ${ids.userId}
            RETURNING *
          ), signed_in AS (
            UPDATE oauth.users u SET last_sign_in_at = ${now}, updated_at = ${now}
            FROM identity WHERE u.id = identity.user_id AND identity.user_id <> ${ids.userId}
            RETURNING u.*
          )
          SELECT * FROM created UNION ALL SELECT * FROM signed_in`.pipe(decodeFirst(User))
          // The login that waited takes the DO UPDATE branch, but its statement reads the users of
          // the snapshot it started with, which lacks the user the other login created: it returns
          // no row. By then the other login has committed (the wait was for that), so the statement
          // run again finds the identity and its user.
          return upsert.pipe(
            Effect.flatMap(
              Option.match({
                onSome: Effect.succeed,
                onNone: () =>
                  Effect.flatMap(
                    upsert,
                    Option.match({
                      onSome: Effect.succeed,
                      onNone: () => Effect.dieMessage("identity upsert returned no user")
                    })
                  )
              })
            )
          )
        },
        (profile) => ({ provider: profile.provider })
      ),
      findById: Telemetry.fn("UpstreamUsersPg.findById")(
        (id) => sql`SELECT * FROM oauth.users WHERE id = ${id}`.pipe(decodeFirst(User)),
        (id) => ({ "user.id": id })
      )
    }
  })
)
