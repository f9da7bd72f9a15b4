import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Mail from "../../domain/auth/Mail.js"
import * as Unlinking from "../../domain/auth/Unlinking.js"
import { type Email, nothingPending } from "../../domain/User.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { AuthSettings } from "./AuthSettings.js"
import { MailOutbox } from "./ports/MailOutbox.js"
import { OneTimeTokenStore } from "./ports/OneTimeTokenStore.js"
import { Transactions } from "./ports/Transactions.js"
import { UserRepository } from "./ports/UserRepository.js"

/** Supabase Auth's answer while `SECURITY_MANUAL_LINKING_ENABLED` is off. */
export const ensureManualLinking = Effect.flatMap(AuthSettings, (settings) =>
  settings.manualLinkingEnabled ? Effect.void : Effect.fail(new AuthError.ManualLinkingDisabled())
)

/**
 * DELETE /user/identities/{identity_id} (supabase-js `unlinkIdentity`): one of the signed-in
 * user's sign-in methods removed, never the last one; the user's address or number rewritten as
 * Supabase Auth does (Unlinking), in one transaction with the deletion — an address replaced
 * voids what was sent to it and any pending change. The address the user had hears of it with
 * `MAILER_NOTIFICATIONS_IDENTITY_UNLINKED_ENABLED`.
 */
export const unlinkIdentity = Telemetry.fn("UnlinkIdentity.unlinkIdentity")(
  (signedIn: SignedIn, identityId: string) =>
    Effect.gen(function* () {
      yield* ensureManualLinking
      const settings = yield* AuthSettings
      const users = yield* UserRepository
      const user = signedIn.user
      const identities = yield* users.identitiesOf(user.id)
      if (identities.length <= 1) {
        return yield* new AuthError.LastIdentity()
      }
      const removed = identities.find((identity) => identity.id === identityId)
      if (removed === undefined) {
        return yield* new AuthError.IdentityNotFound()
      }
      const now = new Date(yield* Clock.currentTimeMillis)
      const remaining = identities.filter((identity) => identity !== removed)
      // Supabase Auth passes over an address another user has for the next best one.
      const taken = new Set<Email>()
      for (const address of Unlinking.replacements(user, removed, remaining)) {
        const holder = yield* users.findByEmail(address)
        if (Option.exists(holder, (other) => other.id !== user.id)) taken.add(address)
      }
      const unlinked = Unlinking.afterUnlink(user, removed, remaining, {
        autoconfirm: settings.mailerAutoconfirm,
        taken,
        now
      })
      if (unlinked._tag === "EmailConflict") return yield* new AuthError.UnlinkEmailConflict()
      const after = unlinked.user
      yield* Effect.flatMap(Transactions, (transactions) =>
        transactions.run(
          Effect.gen(function* () {
            if (!(yield* users.removeIdentity(user.id, removed.id))) {
              return yield* new AuthError.IdentityNotFound()
            }
            yield* users.update(
              user.id,
              {
                email: after.email,
                emailConfirmedAt: after.emailConfirmedAt,
                phone: after.phone,
                phoneConfirmedAt: after.phoneConfirmedAt,
                userMetadata: after.userMetadata,
                appMetadata: after.appMetadata,
                ...(unlinked.addressReplaced ? nothingPending : {})
              },
              now
            )
            // Links and codes went to the address the user no longer has.
            if (unlinked.addressReplaced) yield* (yield* OneTimeTokenStore).endAllOf(user.id)
            const to = user.email
            if (settings.notifications.has("identity_unlinked_notification") && Option.isSome(to)) {
              yield* Effect.flatMap(MailOutbox, (outbox) =>
                outbox.enqueue(
                  new Mail.Message({
                    kind: "identity_unlinked_notification",
                    to: to.value,
                    variables: {
                      SiteURL: settings.siteUrl,
                      Email: to.value,
                      Provider: removed.provider,
                      // As Supabase Auth: the address the user had, their metadata as now.
                      Data: after.userMetadata
                    }
                  }),
                  now
                )
              )
            }
          })
        )
      ).pipe(
        Effect.catchTags({
          EmailExists: () => new AuthError.UnlinkEmailConflict(),
          PhoneExists: () => new AuthError.PhoneInUse(),
          UserNotFound: () => new AuthError.UserFromJwtNotFound()
        })
      )
    })
)
