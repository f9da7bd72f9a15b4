import * as Effect from "effect/Effect"
import * as Telemetry from "../../Telemetry.js"
import { AuthSettings } from "../AuthSettings.js"
import { UserRepository } from "../ports/UserRepository.js"

/** Supabase Auth's page size when `per_page` is not given. */
export const defaultPerPage = 50

/**
 * GET /admin/users (supabase-js `admin.listUsers`): one page of the audience's users, newest
 * first, with the total for `X-Total-Count` and the `Link` header.
 */
export const listUsers = Telemetry.fn("admin.ListUsers")((page: number, perPage: number) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const repository = yield* UserRepository
    const listed = yield* repository.list({ aud: settings.audience, page, perPage, order: "desc" })
    // Each user with its identities, as Supabase Auth lists them; a page is small.
    const users = yield* Effect.forEach(
      listed.users,
      (user) => Effect.map(repository.identitiesOf(user.id), (identities) => ({ user, identities })),
      { concurrency: 4 }
    )
    return { users, total: listed.total, aud: settings.audience }
  })
)
