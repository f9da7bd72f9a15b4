import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import {
  CustomProviderStore,
  IdentifierTaken,
  OverProviderQuota
} from "../../../application/auth/ports/CustomProviderStore.js"
import type { CustomProvider } from "../../../domain/auth/CustomProvider.js"

/** Custom providers in one process's memory; each change is one atomic step. */
export const layer = Layer.effect(
  CustomProviderStore,
  Effect.gen(function* () {
    const saved = yield* Ref.make<ReadonlyArray<CustomProvider>>([])
    return {
      create: (provider, quota) =>
        Effect.flatten(
          Ref.modify(
            saved,
            (
              all
            ): [Effect.Effect<void, IdentifierTaken | OverProviderQuota>, ReadonlyArray<CustomProvider>] => {
              if (all.some((other) => other.identifier === provider.identifier))
                return [Effect.fail(new IdentifierTaken()), all]
              if (Option.exists(quota, (most) => all.length >= most))
                return [Effect.fail(new OverProviderQuota()), all]
              return [Effect.void, [...all, provider]]
            }
          )
        ),
      find: (identifier) =>
        Effect.map(Ref.get(saved), (all) =>
          Option.fromNullable(all.find((provider) => provider.identifier === identifier))
        ),
      list: (type) =>
        Effect.map(Ref.get(saved), (all) =>
          all
            .filter((provider) =>
              Option.getOrElse(
                Option.map(type, (only) => provider.providerType === only),
                () => true
              )
            )
            .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
        ),
      update: (provider) =>
        Ref.modify(saved, (all): [boolean, ReadonlyArray<CustomProvider>] =>
          all.some((other) => other.id === provider.id)
            ? [true, all.map((other) => (other.id === provider.id ? provider : other))]
            : [false, all]
        ),
      remove: (identifier) =>
        Ref.modify(saved, (all): [boolean, ReadonlyArray<CustomProvider>] => {
          const rest = all.filter((provider) => provider.identifier !== identifier)
          return [rest.length !== all.length, rest]
        })
    }
  })
)
