import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Telemetry from "../../Telemetry.js"
import { AuthSettings } from "../AuthSettings.js"
import { UserRepository } from "../ports/UserRepository.js"

/** Supabase Auth's page size when `per_page` is not given. */
export const defaultPerPage = 50

/** GET /admin/users, as decoded from the query. */
export interface ListUsersRequest {
  /** 1-based. */
  readonly page: number
  readonly perPage: number
  /** By `created_at`: `sort=created_at asc` or `desc` (the default). */
  readonly order: "asc" | "desc"
  /** Users whose email or full name contains it (`UserRepository.PageRequest`); `""`: all. */
  readonly filter: string
}

/**
 * GET /admin/users (supabase-js `admin.listUsers`): one page of the audience's users (the
 * soft-deleted among them, as Supabase Auth lists them), newest first unless asked otherwise,
 * optionally filtered, with the total for `X-Total-Count` and the `Link` header.
 */
export const listUsers = Telemetry.fn("admin.ListUsers")((request: ListUsersRequest) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const repository = yield* UserRepository
    const listed = yield* repository.list({ aud: settings.audience, ...request })
    // Each user with its identities and factors, read together (docs/compatibility.md: Supabase
    // Auth's list loads neither); a page is small. One gone since the page was read shows none.
    const users = yield* Effect.forEach(
      listed.users,
      (user) =>
        Effect.map(repository.findAccount(user.id), (found) =>
          Option.match(found, {
            onNone: () => ({ user, identities: [], factors: [] }),
            onSome: ({ factors, identities }) => ({ user, identities, factors })
          })
        ),
      { concurrency: 4 }
    )
    return { users, total: listed.total, aud: settings.audience }
  })
)
