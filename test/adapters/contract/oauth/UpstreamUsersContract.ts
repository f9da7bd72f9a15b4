import { randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UpstreamUsers } from "../../../../application/oauth/ports/UpstreamUsers.js"
import { IdentityId, UserId } from "../../../../domain/Ids.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/oauth/Fixtures.js"
import { concurrently, type It } from "../Storage.js"

const profile = (subject: string) => ({
  provider: "github",
  subject,
  email: Option.some("Octo.Cat@Example.com"),
  emailVerified: true,
  data: { login: "octocat" }
})

const freshIds = () => ({ userId: UserId.make(randomUUID()), identityId: IdentityId.make(randomUUID()) })

export const upstreamUsersContract = (it: It) =>
  describe("UpstreamUsers", () => {
    it.effect("creates a user on first login and finds the same user on the next", () =>
      Effect.gen(function* () {
        const users = yield* UpstreamUsers
        const subject = randomUUID()
        const first = yield* users.upsertFromUpstream(profile(subject), freshIds(), Fixtures.t0)
        expect(first.email).toEqual(Option.some("octo.cat@example.com"))
        expect(first.emailConfirmedAt).toEqual(Option.some(Fixtures.t0))
        expect(first.appMetadata).toEqual({ provider: "github", providers: ["github"] })
        const later = Time.plus(Fixtures.t0, "1 day")
        const second = yield* users.upsertFromUpstream(profile(subject), freshIds(), later)
        expect(second.id).toBe(first.id)
        expect(second.lastSignInAt).toEqual(Option.some(later))
        const found = Option.getOrThrow(yield* users.findById(first.id))
        expect(found.createdAt).toEqual(Fixtures.t0)
      })
    )

    it.effect("keeps the upstream's profile data exactly as it came, key spelling included", () =>
      Effect.gen(function* () {
        const users = yield* UpstreamUsers
        const data = {
          full_name: "Octo Cat",
          avatar_url: "https://example.com/a.png",
          nested: { snake_key: 1 }
        }
        const created = yield* users.upsertFromUpstream(
          { ...profile(randomUUID()), data },
          freshIds(),
          Fixtures.t0
        )
        const found = Option.getOrThrow(yield* users.findById(created.id))
        expect(found.userMetadata).toEqual(data)
      })
    )

    it.effect("the same subject at another provider is another user", () =>
      Effect.gen(function* () {
        const users = yield* UpstreamUsers
        const subject = randomUUID()
        const a = yield* users.upsertFromUpstream(profile(subject), freshIds(), Fixtures.t0)
        const b = yield* users.upsertFromUpstream(
          { ...profile(subject), provider: "google" },
          freshIds(),
          Fixtures.t0
        )
        expect(a.id).not.toBe(b.id)
      })
    )

    it.effect("concurrent first logins of one person create exactly one user", () =>
      Effect.gen(function* () {
        const users = yield* UpstreamUsers
        const subject = randomUUID()
        const results = yield* Effect.all(
          Array.from({ length: concurrently }, () =>
            users.upsertFromUpstream(profile(subject), freshIds(), Fixtures.t0)
          ),
          { concurrency: "unbounded" }
        )
        expect(new Set(results.map((u) => u.id)).size).toBe(1)
      })
    )
  })
