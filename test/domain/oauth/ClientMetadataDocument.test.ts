import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Client from "../../../domain/oauth/Client.js"
import * as ClientMetadataDocument from "../../../domain/oauth/ClientMetadataDocument.js"

const url = new URL("https://app.example.com/oauth/client.json")
const now = new Date("2026-01-01T00:00:00.000Z")

const document = (
  fields: Partial<ConstructorParameters<typeof ClientMetadataDocument.ClientMetadataDocument>[0]> = {}
) =>
  new ClientMetadataDocument.ClientMetadataDocument({
    client_id: url.href,
    redirect_uris: ["https://app.example.com/cb", "http://127.0.0.1/cb"],
    ...fields
  })

const messageOf = <A>(result: Either.Either<A, ClientMetadataDocument.InvalidClientMetadataDocument>) =>
  Either.match(result, { onLeft: (error) => error.message, onRight: () => "valid" })

describe("ClientMetadataDocument.parseClientIdUrl", () => {
  it.each([
    "https://app.example.com/client.json",
    "https://app.example.com:8443/oauth/client?v=2",
    "https://127.0.0.1:8443/client.json"
  ])("accepts %s", (raw) => {
    expect(Option.map(ClientMetadataDocument.parseClientIdUrl(raw), (u) => u.href)).toEqual(Option.some(raw))
  })

  it.each([
    ["a plain id", "my-app"],
    ["http", "http://app.example.com/client.json"],
    ["no path", "https://app.example.com"],
    ["the root path", "https://app.example.com/"],
    ["a fragment", "https://app.example.com/client.json#x"],
    ["an empty fragment", "https://app.example.com/client.json#"],
    ["user information", "https://user:pw@app.example.com/client.json"],
    ["dot segments", "https://app.example.com/a/../client.json"],
    ["a single dot segment", "https://app.example.com/./client.json"],
    ["an upper-case host", "https://App.example.com/client.json"],
    ["the default port written out", "https://app.example.com:443/client.json"]
  ])("refuses %s", (_, raw) => {
    expect(Option.isNone(ClientMetadataDocument.parseClientIdUrl(raw))).toBe(true)
  })
})

describe("ClientMetadataDocument.validate and parse", () => {
  it("accepts a public client's document, ignoring other metadata", () => {
    const parsed = ClientMetadataDocument.parse(url, {
      client_id: url.href,
      client_name: "App",
      redirect_uris: ["https://app.example.com/cb"],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code"],
      logo_uri: "https://app.example.com/logo.png"
    })
    expect(messageOf(parsed)).toBe("valid")
  })

  it.each([
    [
      "a client_id of another URL",
      document({ client_id: "https://app.example.com/other.json" }),
      "client_id does not match"
    ],
    [
      "a client_id differing only in case",
      document({ client_id: url.href.toUpperCase() }),
      "client_id does not match"
    ],
    [
      "a secret-based auth method",
      document({ token_endpoint_auth_method: "client_secret_post" }),
      "must be none or private_key_jwt"
    ],
    [
      "only secret-based methods among those it supports",
      document({
        token_endpoint_auth_method: "client_secret_basic",
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_jwt"]
      }),
      "must be none or private_key_jwt"
    ],
    [
      "a key-based auth method with no jwks_uri",
      document({
        token_endpoint_auth_method: "private_key_jwt",
        token_endpoint_auth_methods_supported: ["private_key_jwt"]
      }),
      "needs a jwks_uri"
    ],
    [
      "a key-based auth method with a plain-http jwks_uri",
      document({
        token_endpoint_auth_method: "private_key_jwt",
        jwks_uri: "http://app.example.com/jwks.json"
      }),
      "jwks_uri must be an https URL"
    ],
    [
      "a jwks_uri with user information",
      document({
        token_endpoint_auth_method: "private_key_jwt",
        jwks_uri: "https://u:p@app.example.com/jwks.json"
      }),
      "jwks_uri must be an https URL"
    ],
    ["no redirect URIs", document({ redirect_uris: [] }), "must not be empty"],
    [
      "a plain-http redirect URI",
      document({ redirect_uris: ["http://app.example.com/cb"] }),
      "must use https"
    ],
    [
      "a fragment in a redirect URI",
      document({ redirect_uris: ["https://app.example.com/cb#x"] }),
      "fragment"
    ]
  ])("refuses %s", (_, doc, message) => {
    expect(messageOf(ClientMetadataDocument.validate(url, doc))).toContain(message)
  })

  it("accepts a client that prefers another method but lists none, as ChatGPT's documents do", () => {
    const parsed = ClientMetadataDocument.parse(url, {
      client_id: url.href,
      client_name: "ChatGPT",
      redirect_uris: ["https://chatgpt.com/connector/oauth/abc"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "private_key_jwt",
      token_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
      token_endpoint_auth_signing_alg: "RS256",
      jwks_uri: "https://chatgpt.com/oauth/jwks.json"
    })
    expect(messageOf(parsed)).toBe("valid")
    const client = Either.getOrThrow(
      Either.flatMap(parsed, (valid) => ClientMetadataDocument.toClient(url, valid, now))
    )
    expect(client.type).toBe("public")
    expect(client.secretHash).toEqual(Option.none())
    // It prefers private_key_jwt, which this server offers: it must sign with its keys.
    expect(client.jwksUri).toEqual(Option.some("https://chatgpt.com/oauth/jwks.json"))
  })

  it("takes none when a client prefers it, even if it could also sign", () => {
    const client = Either.getOrThrow(
      ClientMetadataDocument.toClient(
        url,
        document({
          token_endpoint_auth_method: "none",
          token_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
          jwks_uri: "https://app.example.com/jwks.json"
        }),
        now
      )
    )
    expect(client.jwksUri).toEqual(Option.none())
  })

  it("takes private_key_jwt from the supported list when the preferred method is not offered", () => {
    const client = Either.getOrThrow(
      ClientMetadataDocument.toClient(
        url,
        document({
          token_endpoint_auth_method: "client_secret_basic",
          token_endpoint_auth_methods_supported: ["client_secret_basic", "private_key_jwt", "none"],
          jwks_uri: "https://app.example.com/jwks.json"
        }),
        now
      )
    )
    expect(client.jwksUri).toEqual(Option.some("https://app.example.com/jwks.json"))
  })

  it("refuses what is not a document", () => {
    expect(messageOf(ClientMetadataDocument.parse(url, ["not", "an", "object"]))).toContain(
      "not a client metadata document"
    )
    expect(messageOf(ClientMetadataDocument.parse(url, { client_id: url.href }))).toContain("redirect_uris")
  })
})

describe("ClientMetadataDocument.toClient", () => {
  it("builds a public metadata-document client named by the document", () => {
    const client = Either.getOrThrow(
      ClientMetadataDocument.toClient(
        url,
        document({ client_name: "App", redirect_uris: ["https://a/cb", "https://a/cb"] }),
        now
      )
    )
    expect(client.id).toBe(url.href)
    expect(client.name).toBe("App")
    expect(client.type).toBe("public")
    expect(client.origin).toBe("metadata_document")
    expect(client.redirectUris).toEqual(["https://a/cb"])
    expect(client.secretHash).toEqual(Option.none())
    expect(client.createdAt).toEqual(now)
  })

  it("names a client without client_name by its host", () => {
    expect(Either.getOrThrow(ClientMetadataDocument.toClient(url, document(), now)).name).toBe(
      "app.example.com"
    )
  })

  it("refuses an invalid document", () => {
    expect(Either.isLeft(ClientMetadataDocument.toClient(url, document({ redirect_uris: [] }), now))).toBe(
      true
    )
  })

  it("makes a client that asks for consent and is never reaped", () => {
    const client = Either.getOrThrow(ClientMetadataDocument.toClient(url, document(), now))
    expect(Client.requiresConsent(client)).toBe(true)
    expect(Client.isReapable(client)).toBe(false)
    expect(Client.isIdle(client, new Date("2036-01-01T00:00:00.000Z"))).toBe(false)
    expect(Client.receivesRefreshTokens(client)).toBe(true)
  })
})
