import * as Schema from "effect/Schema"

/** The stored keys changed between reading and writing them (another operator at work). */
export class KeysChanged extends Schema.TaggedError<KeysChanged>()("KeysChanged", {
  message: Schema.String
}) {}

export const keysChanged = () =>
  new KeysChanged({ message: "the signing keys changed meanwhile: list them and decide again" })
