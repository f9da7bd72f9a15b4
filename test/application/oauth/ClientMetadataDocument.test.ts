import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { authenticate, findClient } from "../../../application/oauth/ClientAuthentication.js"
import { exchangeCode } from "../../../application/oauth/ExchangeCode.js"
import { introspect } from "../../../application/oauth/Introspect.js"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import {
  ClientMetadataFetcher,
  ClientMetadataUnavailable
} from "../../../application/oauth/ports/ClientMetadataFetcher.js"
import { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import { ClientId } from "../../../domain/Ids.js"
import { ClientMetadataDocument } from "../../../domain/oauth/ClientMetadataDocument.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

const documentUrl = "https://mcp-client.example.com/oauth/client.json"

/**
 * A fetcher serving whatever the test puts in `documents`, counting its calls; while `down` is
 * set, every publisher is unreachable.
 */
const documentsFor = () => {
  const documents = new Map<string, ClientMetadataDocument>()
  const state = { calls: 0, down: false }
  const layer = Layer.succeed(ClientMetadataFetcher, {
    fetch: (url) =>
      Effect.suspend(() => {
        state.calls += 1
        if (state.down) {
          return Effect.fail(new ClientMetadataUnavailable({ url: url.href, reason: "503", answer: "down" }))
        }
        const document = documents.get(url.href)
        return document === undefined
          ? Effect.fail(new ClientMetadataUnavailable({ url: url.href, reason: "404", answer: "gone" }))
          : Effect.succeed(document)
      })
  })
  return {
    documents,
    layer: Harness.layerWith(layer),
    calls: () => state.calls,
    setDown: (down: boolean) => {
      state.down = down
    }
  }
}

const document = (
  redirectUris: ReadonlyArray<string> = ["http://127.0.0.1/callback"],
  clientId = documentUrl
) =>
  new ClientMetadataDocument({ client_id: clientId, client_name: "MCP client", redirect_uris: redirectUris })

const stored = (id: string) =>
  Effect.flatMap(ClientRepository, (clients) => clients.findById(ClientId.make(id)))

describe("clients described by a Client ID Metadata Document", () => {
  it.effect("log in and exchange the code with the document URL as client_id", () => {
    const { documents, layer } = documentsFor()
    documents.set(documentUrl, document())
    return Effect.gen(function* () {
      const back = yield* Harness.loginFlow(documentUrl)
      const client = yield* authenticate({
        clientId: Option.some(documentUrl),
        secret: Option.none(),
        assertion: Option.none()
      })
      expect(client.origin).toBe("metadata_document")
      const tokens = yield* exchangeCode(client, {
        code: Option.fromNullable(back.searchParams.get("code")),
        redirectUri: Option.some(Harness.redirectUri),
        codeVerifier: Option.some(Harness.verifier)
      })
      expect(Option.isSome(tokens.refreshToken)).toBe(true)
      const row = Option.getOrThrow(yield* stored(documentUrl))
      expect(row.type).toBe("public")
      expect(row.name).toBe("MCP client")
      expect(Option.isSome(row.lastUsedAt)).toBe(true)
    }).pipe(Effect.provide(layer))
  })

  it.effect(
    "an unavailable document is an unknown client: an error page at authorize, invalid_client at /token",
    () => {
      const { layer } = documentsFor()
      return Effect.gen(function* () {
        const outcome = yield* Harness.authorizeWith({
          client_id: documentUrl,
          redirect_uri: Harness.redirectUri,
          response_type: "code"
        })
        expect(outcome._tag).toBe("ShowError")
        const token = yield* Effect.either(
          authenticate({
            clientId: Option.some(documentUrl),
            secret: Option.none(),
            assertion: Option.none()
          })
        )
        expect(Either.isLeft(token) && token.left.code).toBe("invalid_client")
        expect(Option.isNone(yield* stored(documentUrl))).toBe(true)
      }).pipe(Effect.provide(layer))
    }
  )

  it.effect("a document that does not validate is refused even if a fetcher returns it", () => {
    const { documents, layer } = documentsFor()
    documents.set(
      documentUrl,
      document(["http://127.0.0.1/callback"], "https://elsewhere.example.com/client.json")
    )
    return Effect.gen(function* () {
      expect(Option.isNone(yield* findClient(documentUrl))).toBe(true)
      expect(Option.isNone(yield* stored(documentUrl))).toBe(true)
    }).pipe(Effect.provide(layer))
  })

  it.effect(
    "the stored row follows the document, and a document that is gone makes the client unknown",
    () => {
      const { documents, layer } = documentsFor()
      documents.set(documentUrl, document())
      return Effect.gen(function* () {
        const first = Option.getOrThrow(yield* findClient(documentUrl))
        documents.set(documentUrl, document(["https://mcp-client.example.com/cb"]))
        const edited = Option.getOrThrow(yield* findClient(documentUrl))
        expect(edited.redirectUris).toEqual(["https://mcp-client.example.com/cb"])
        expect(edited.createdAt).toEqual(first.createdAt)
        expect(Option.getOrThrow(yield* stored(documentUrl)).redirectUris).toEqual([
          "https://mcp-client.example.com/cb"
        ])
        documents.delete(documentUrl)
        expect(Option.isNone(yield* findClient(documentUrl))).toBe(true)
      }).pipe(Effect.provide(layer))
    }
  )

  it.effect(
    "while the publisher is down, the copy fetched last stands in; a client never fetched stays unknown",
    () => {
      const { documents, layer, setDown } = documentsFor()
      documents.set(documentUrl, document())
      return Effect.gen(function* () {
        const back = yield* Harness.loginFlow(documentUrl)
        setDown(true)
        // An outage at the client's host must not sign its users out: invalid_client tells an
        // MCP client to forget its registration and tokens.
        const client = yield* authenticate({
          clientId: Option.some(documentUrl),
          secret: Option.none(),
          assertion: Option.none()
        })
        const tokens = yield* exchangeCode(client, {
          code: Option.fromNullable(back.searchParams.get("code")),
          redirectUri: Option.some(Harness.redirectUri),
          codeVerifier: Option.some(Harness.verifier)
        })
        expect(Option.isSome(tokens.refreshToken)).toBe(true)
        const neverSeen = "https://other-client.example.com/client.json"
        expect(Option.isNone(yield* findClient(neverSeen))).toBe(true)
        // Up again and saying the document is gone: the client is unknown at once, and its row
        // goes with its tokens, so that a later outage cannot bring the old copy back.
        setDown(false)
        documents.delete(documentUrl)
        expect(Option.isNone(yield* findClient(documentUrl))).toBe(true)
        expect(Option.isNone(yield* stored(documentUrl))).toBe(true)
        expect((yield* introspect(Redacted.value(tokens.accessToken), Option.none())).active).toBe(false)
        setDown(true)
        expect(Option.isNone(yield* findClient(documentUrl))).toBe(true)
      }).pipe(Effect.provide(layer))
    }
  )

  it.effect("a stored client of another origin wins: no fetch", () => {
    const { documents, layer, calls } = documentsFor()
    documents.set(documentUrl, document())
    return Effect.gen(function* () {
      yield* ManageClients.create({
        name: "operator's",
        redirectUris: ["http://127.0.0.1/callback"],
        confidential: false,
        clientId: Option.some(documentUrl),
        secret: Option.none()
      })
      const found = Option.getOrThrow(yield* findClient(documentUrl))
      expect(found.origin).toBe("seeded")
      expect(calls()).toBe(0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("ids that are not document URLs are never fetched", () => {
    const { layer, calls } = documentsFor()
    return Effect.gen(function* () {
      for (const raw of [
        "my-app",
        "http://mcp-client.example.com/client.json",
        `${documentUrl}#x`,
        "https://x.example"
      ]) {
        expect(Option.isNone(yield* findClient(raw))).toBe(true)
      }
      expect(calls()).toBe(0)
    }).pipe(Effect.provide(layer))
  })
})
