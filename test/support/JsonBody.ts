import * as Schema from "effect/Schema"

const decodeObject = Schema.decodeUnknownSync(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/**
 * A response's JSON body as an object whose fields a test reads without a cast; a body that is
 * no JSON object fails the test here, with the decoder's message.
 */
export const jsonObject = async (response: Response): Promise<Readonly<Record<string, unknown>>> =>
  decodeObject(await response.json())
