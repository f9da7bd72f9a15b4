import { randomUUID } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"

/**
 * The development inbox of `latchkey dev`: the mail its SMTP server caught and the texts its
 * SMS gateway kept instead of sending, in memory, newest first, for a developer to read on its
 * page or a test to read through its JSON API. Nothing is ever delivered further.
 */

/** How a message came: a mail over SMTP, or a text handed to the SMS gateway. */
export type Kind = "mail" | "sms"

/** A message as it arrives, before the inbox gives it an id and a time. */
export interface Incoming {
  readonly kind: Kind
  /** The sender as the mail's From header writes it; empty for a text. */
  readonly from: string
  /** The recipients (the SMTP envelope's, Bcc included), or the number a text was for. */
  readonly to: ReadonlyArray<string>
  /** None for a text. */
  readonly subject: Option.Option<string>
  readonly text: string
  /** None for a text, and for a mail without an HTML part. */
  readonly html: Option.Option<string>
}

export interface Message extends Incoming {
  readonly id: string
  /** The http(s) links of the message, in the order they appear, each once. */
  readonly links: ReadonlyArray<string>
  readonly receivedAt: Date
}

/**
 * Messages kept at most; the oldest goes first. A development session reads the last few, and
 * a process that runs for weeks must not grow with every mail it ever caught.
 */
export const defaultCapacity = 200

export class DevInbox extends Context.Tag("latchkey/devinbox/DevInbox")<
  DevInbox,
  {
    /** Keeps a message; the message as kept. */
    readonly add: (incoming: Incoming) => Effect.Effect<Message>
    /** Every message kept, newest first. */
    readonly list: Effect.Effect<ReadonlyArray<Message>>
    readonly find: (id: string) => Effect.Effect<Option.Option<Message>>
    /** Forgets every message. */
    readonly clear: Effect.Effect<void>
  }
>() {}

const entities: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }

/** The character references a mail's HTML may write in an attribute (`&amp;` between parameters). */
const decodeReferences = (text: string): string =>
  text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X"))
      return codePoint(Number.parseInt(name.slice(2), 16), whole)
    if (name.startsWith("#")) return codePoint(Number.parseInt(name.slice(1), 10), whole)
    return entities[name.toLowerCase()] ?? whole
  })

const codePoint = (value: number, otherwise: string): string =>
  Number.isInteger(value) && value >= 0 && value <= 0x10ffff ? String.fromCodePoint(value) : otherwise

/** Where a URL in running text ends: at white space, or at what quotes or brackets it. */
const urlInText = /https?:\/\/[^\s<>"'`]+/g
const hrefInHtml = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi

/** A URL as a link to show: http(s) only, so that a `javascript:` href never becomes one. */
const asLink = (candidate: string): Option.Option<string> => {
  // Punctuation that ends a sentence is not part of the URL before it.
  const trimmed = candidate.trim().replace(/[.,;:!?)\]]+$/, "")
  try {
    const url = new URL(trimmed)
    return url.protocol === "http:" || url.protocol === "https:" ? Option.some(trimmed) : Option.none()
  } catch {
    return Option.none()
  }
}

/** The http(s) links of a message: the HTML's hrefs, then the URLs in its text, each once. */
export const linksOf = (text: string, html: Option.Option<string>): ReadonlyArray<string> => {
  const candidates: Array<string> = []
  if (Option.isSome(html)) {
    for (const match of html.value.matchAll(hrefInHtml)) {
      candidates.push(decodeReferences(match[1] ?? match[2] ?? match[3] ?? ""))
    }
  }
  for (const match of text.matchAll(urlInText)) candidates.push(match[0])
  const links: Array<string> = []
  for (const candidate of candidates) {
    const link = asLink(candidate)
    if (Option.isSome(link) && !links.includes(link.value)) links.push(link.value)
  }
  return links
}

/** An empty inbox keeping at most `capacity` messages. */
export const make = (options: { readonly capacity?: number } = {}) =>
  Effect.map(Ref.make<ReadonlyArray<Message>>([]), (messages) => {
    const capacity = Math.max(1, options.capacity ?? defaultCapacity)
    return DevInbox.of({
      add: (incoming) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const message: Message = {
            ...incoming,
            id: randomUUID(),
            links: linksOf(incoming.text, incoming.html),
            receivedAt: new Date(now)
          }
          return Effect.as(
            Ref.update(messages, (kept) => [message, ...kept].slice(0, capacity)),
            message
          )
        }),
      list: Ref.get(messages),
      find: (id) =>
        Effect.map(Ref.get(messages), (kept) =>
          Option.fromNullable(kept.find((message) => message.id === id))
        ),
      clear: Ref.set(messages, [])
    })
  })

export const layer = (options: { readonly capacity?: number } = {}) => Layer.effect(DevInbox, make(options))
